/**
 * Whether a URL's host may be fetched on a model's behalf: a public name or a public IP address. Checked on the
 * URL as the WHATWG parser normalised it (so `2130706433`, `0x7f.1` and `127.1` are already `127.0.0.1`, and
 * `[::ffff:127.0.0.1]` is `[::ffff:7f00:1]`), on every redirect hop. Names that resolve to private addresses cannot
 * be checked without DNS; on Cloudflare's network a Worker's fetch cannot reach private networks anyway.
 */
export function blockedHostReason(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") return "it has no host";
  if (host.startsWith("[")) return blockedIPv6(host.slice(1, -1));
  const ipv4 = parseIPv4(host);
  if (ipv4 !== undefined) return blockedIPv4(ipv4);
  if (!host.includes(".")) return "it is a single-label (local) name";
  if (host === "localhost" || INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return "it is a local or internal name";
  }
  return undefined;
}

const INTERNAL_SUFFIXES = [".localhost", ".internal", ".local", ".lan", ".home.arpa", ".localdomain", ".intranet"];

/** IPv4 ranges that are not the public internet: [first address, prefix length, what it is]. */
const IPV4_BLOCKS: ReadonlyArray<[number, number, string]> = [
  [0x00000000, 8, "a 'this network' address"],
  [0x0a000000, 8, "a private address"],
  [0x64400000, 10, "a carrier-grade NAT address"],
  [0x7f000000, 8, "a loopback address"],
  [0xa9fe0000, 16, "a link-local (cloud metadata) address"],
  [0xac100000, 12, "a private address"],
  [0xc0000000, 24, "a protocol-assignment address"],
  [0xc0000200, 24, "a documentation address"],
  [0xc0a80000, 16, "a private address"],
  [0xc6120000, 15, "a benchmarking address"],
  [0xc6336400, 24, "a documentation address"],
  [0xcb007100, 24, "a documentation address"],
  [0xe0000000, 4, "a multicast address"],
  [0xf0000000, 4, "a reserved address"],
];

function parseIPv4(host: string): number | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

function blockedIPv4(address: number): string | undefined {
  for (const [first, prefix, what] of IPV4_BLOCKS) {
    const size = 2 ** (32 - prefix);
    if (address >= first && address < first + size) return `it is ${what}`;
  }
  return undefined;
}

function blockedIPv6(literal: string): string | undefined {
  const words = parseIPv6(literal);
  if (!words) return "it is not a valid IPv6 address";
  const [w0, w1, w2, w3, w4, w5, w6, w7] = words as [number, number, number, number, number, number, number, number];
  const embeddedV4 = w6 * 65536 + w7;
  const allZeroUpTo = (index: number) => words.slice(0, index).every((word) => word === 0);
  if (allZeroUpTo(8)) return "it is the unspecified address";
  if (allZeroUpTo(7) && w7 === 1) return "it is a loopback address";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address.
  if (allZeroUpTo(5) && w5 === 0xffff) return blockedIPv4(embeddedV4) ?? undefined;
  if (allZeroUpTo(6)) return blockedIPv4(embeddedV4) ?? "it is an IPv4-compatible address";
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) return blockedIPv4(embeddedV4);
  // 6to4 (2002:a.b.c.d::/48) carries one in its second and third words.
  if (w0 === 0x2002) return blockedIPv4(w1 * 65536 + w2);
  if ((w0 & 0xfe00) === 0xfc00) return "it is a unique local (private) address";
  if ((w0 & 0xffc0) === 0xfe80) return "it is a link-local address";
  if ((w0 & 0xff00) === 0xff00) return "it is a multicast address";
  if (w0 === 0x2001 && w1 === 0x0db8) return "it is a documentation address";
  if (w0 === 0x0100 && w1 === 0 && w2 === 0 && w3 === 0) return "it is a discard address";
  return undefined;
}

/** The eight 16-bit words of an IPv6 address as the URL parser writes it (compressed, hexadecimal). */
function parseIPv6(literal: string): number[] | undefined {
  const halves = literal.split("::");
  if (halves.length > 2) return undefined;
  const words = (text: string) => (text === "" ? [] : text.split(":").map((word) => Number.parseInt(word, 16)));
  const head = words(halves[0] ?? "");
  const tail = halves.length === 2 ? words(halves[1] ?? "") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return undefined;
  const all = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return all.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff) ? all : undefined;
}
