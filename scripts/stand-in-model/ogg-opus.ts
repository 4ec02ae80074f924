/**
 * A silent voice message in the format `sendVoice` wants (Opus in an OGG container), built by hand: an `OpusHead`
 * page, an `OpusTags` page (whose comments can carry text, e.g. what a playground voice note "said"), and pages of
 * 20 ms frames of digital silence (the three-byte frame libopus itself emits for silence). Real, playable OGG/Opus
 * bytes for the fakes and the local stand-in model, without an encoder. Plain, erasable TypeScript.
 */

const SAMPLE_RATE = 48_000;
const FRAME_SAMPLES = 960; // 20 ms at 48 kHz
const PRE_SKIP = 312;
/** TOC 0xF8 (CELT-only, fullband, 20 ms, mono, one frame) and the body libopus writes for silence. */
const SILENT_FRAME = Uint8Array.of(0xf8, 0xff, 0xfe);
const FRAMES_PER_PAGE = 50;

export function silentOggOpus(options: { seconds: number; comments?: Record<string, string> }): Uint8Array {
  const serial = 0x7e57ab1e;
  const pages: Uint8Array[] = [];
  let sequence = 0;
  pages.push(page({ packets: [opusHead()], granule: 0n, serial, sequence: sequence++, flags: 0x02 }));
  pages.push(
    page({ packets: [opusTags(options.comments ?? {})], granule: 0n, serial, sequence: sequence++, flags: 0 }),
  );
  const frames = Math.max(1, Math.round((options.seconds * SAMPLE_RATE) / FRAME_SAMPLES));
  for (let written = 0; written < frames; written += FRAMES_PER_PAGE) {
    const count = Math.min(FRAMES_PER_PAGE, frames - written);
    const last = written + count >= frames;
    pages.push(
      page({
        packets: Array.from({ length: count }, () => SILENT_FRAME),
        granule: BigInt(PRE_SKIP + (written + count) * FRAME_SAMPLES),
        serial,
        sequence: sequence++,
        flags: last ? 0x04 : 0,
      }),
    );
  }
  return concat(pages);
}

/** The comments of an OGG/Opus file's `OpusTags` packet (`KEY=value`, keys upper-cased), or none when it has none. */
export function oggOpusComments(bytes: Uint8Array): Record<string, string> {
  const at = indexOf(bytes, new TextEncoder().encode("OpusTags"));
  if (at < 0) return {};
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = at + 8;
  const read32 = () => {
    const value = view.getUint32(offset, true);
    offset += 4;
    return value;
  };
  const decoder = new TextDecoder();
  try {
    const vendorLength = read32();
    offset += vendorLength;
    const comments: Record<string, string> = {};
    for (let count = read32(); count > 0; count -= 1) {
      const length = read32();
      const entry = decoder.decode(bytes.subarray(offset, offset + length));
      offset += length;
      const equals = entry.indexOf("=");
      if (equals > 0) comments[entry.slice(0, equals).toUpperCase()] = entry.slice(equals + 1);
    }
    return comments;
  } catch {
    return {};
  }
}

function opusHead(): Uint8Array {
  const head = new Uint8Array(19);
  head.set(new TextEncoder().encode("OpusHead"));
  const view = new DataView(head.buffer);
  view.setUint8(8, 1); // version
  view.setUint8(9, 1); // channels
  view.setUint16(10, PRE_SKIP, true);
  view.setUint32(12, SAMPLE_RATE, true);
  view.setInt16(16, 0, true); // output gain
  view.setUint8(18, 0); // channel mapping family
  return head;
}

function opusTags(comments: Record<string, string>): Uint8Array {
  const encoder = new TextEncoder();
  const vendor = encoder.encode("telegram-edge-agent silence");
  const entries = Object.entries(comments).map(([key, value]) => encoder.encode(`${key}=${value}`));
  const parts: Uint8Array[] = [encoder.encode("OpusTags"), u32(vendor.length), vendor, u32(entries.length)];
  for (const entry of entries) parts.push(u32(entry.length), entry);
  return concat(parts);
}

function page(input: { packets: Uint8Array[]; granule: bigint; serial: number; sequence: number; flags: number }) {
  const lacing: number[] = [];
  for (const packet of input.packets) {
    let left = packet.length;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
  }
  if (lacing.length > 255) throw new Error("an OGG page holds at most 255 segments");
  const body = concat(input.packets);
  const header = new Uint8Array(27 + lacing.length);
  const view = new DataView(header.buffer);
  header.set(new TextEncoder().encode("OggS"));
  view.setUint8(4, 0); // version
  view.setUint8(5, input.flags);
  view.setBigUint64(6, input.granule, true);
  view.setUint32(14, input.serial, true);
  view.setUint32(18, input.sequence, true);
  view.setUint32(22, 0, true); // checksum, filled in below
  view.setUint8(26, lacing.length);
  header.set(lacing, 27);
  const whole = concat([header, body]);
  new DataView(whole.buffer).setUint32(22, oggCrc(whole), true);
  return whole;
}

/** OGG's CRC-32: polynomial 0x04C11DB7, no reflection, initial value and final XOR 0. */
const CRC_TABLE = Array.from({ length: 256 }, (_, index) => {
  let crc = index << 24;
  for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  return crc >>> 0;
});

function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  return crc;
}

function u32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return bytes;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let start = 0; start <= haystack.length - needle.length; start += 1) {
    for (let index = 0; index < needle.length; index += 1)
      if (haystack[start + index] !== needle[index]) continue outer;
    return start;
  }
  return -1;
}
