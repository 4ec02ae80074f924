import { describe, expect, it } from "vitest";
import { blockedHostReason } from "../../../src/tools/public-address.ts";

/** The host as the URL parser normalises it, as web_fetch checks it. */
const hostOf = (url: string) => new URL(url).hostname;

describe("which hosts web_fetch may reach", () => {
  it("refuses loopback, private, link-local, CGNAT, ULA and internal hosts in every spelling", () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://0x7f000001/",
      "http://017700000001/",
      "http://127.1/",
      "http://0/",
      "http://10.0.0.1/",
      "http://172.31.255.255/",
      "http://192.168.0.10/",
      "http://169.254.169.254/",
      "http://100.100.100.200/",
      "http://224.0.0.1/",
      "http://255.255.255.255/",
      "http://[::]/",
      "http://[::1]/",
      "http://[0:0:0:0:0:0:0:1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:10.0.0.1]/",
      "http://[::127.0.0.1]/",
      "http://[64:ff9b::169.254.169.254]/",
      "http://[2002:a9fe:a9fe::]/",
      "http://[fc00::1]/",
      "http://[fd12:3456::1]/",
      "http://[fe80::1%25eth0]/".replace("%25eth0", ""),
      "http://[ff02::1]/",
      "http://localhost/",
      "http://LocalHost./",
      "http://printer.local/",
      "http://db.internal/",
      "http://app.localhost/",
      "http://router.home.arpa/",
      "http://nas/",
    ]) {
      expect(blockedHostReason(hostOf(url)), url).toBeDefined();
    }
  });

  it("allows public names and addresses", () => {
    for (const url of [
      "https://example.com/",
      "https://en.wikipedia.org/wiki/Telegram",
      "http://93.184.215.14/",
      "http://8.8.8.8/",
      "http://172.32.0.1/",
      "http://100.128.0.1/",
      "http://[2606:4700:4700::1111]/",
      "http://[::ffff:8.8.8.8]/",
    ]) {
      expect(blockedHostReason(hostOf(url)), url).toBeUndefined();
    }
  });

  it("says why in words", () => {
    expect(blockedHostReason("169.254.169.254")).toContain("link-local (cloud metadata)");
    expect(blockedHostReason("[fd00::1]")).toContain("unique local");
    expect(blockedHostReason("intranet")).toContain("single-label");
  });
});
