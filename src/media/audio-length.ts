/**
 * How long a recording is, for pricing its transcription by what can be measured rather than by what its sender
 * declares (a client sets a voice note's duration; Telegram measures only its size). Before the download: the larger
 * of the declared length and the least the file's size can hold at a generous bitrate (a real recording is counted at
 * about its length; 5 MB declaring 1 s counts as the minutes its bytes can hold). After it: an Ogg Opus file's own
 * length, read from its last page, when that is longer still.
 */

/** Bytes a second at the highest bitrate a real recording of each kind is expected to have. */
const GENEROUS_BYTES_PER_SECOND = {
  // Telegram's voice notes are Opus, mono, at up to about 32 kbit/s.
  voice: 4_000,
  // Audio files: MP3 or AAC at up to 320 kbit/s.
  audio: 40_000,
  // Round video notes hold their video too: about 2 Mbit/s.
  video_note: 250_000,
} as const;

export type RecordingSource = keyof typeof GENEROUS_BYTES_PER_SECOND;

/** Seconds to hold for a recording before it is downloaded: at least 1. */
export function recordingSeconds(item: {
  source: RecordingSource;
  durationSeconds?: number | undefined;
  size?: number | undefined;
}): number {
  const declared = item.durationSeconds ?? 0;
  const bySize = (item.size ?? 0) / GENEROUS_BYTES_PER_SECOND[item.source];
  return Math.max(1, Math.ceil(Math.max(declared, bySize)));
}

/** Opus always counts its granule positions at 48 kHz. */
const OPUS_RATE = 48_000;

/**
 * An Ogg Opus file's length in seconds, from the granule position of its last page (less the pre-skip its header
 * names), or undefined when the bytes are not Ogg Opus or no page can be read.
 */
export function oggOpusSeconds(bytes: Uint8Array): number | undefined {
  if (!startsWith(bytes, 0, "OggS")) return undefined;
  const head = indexOf(bytes, "OpusHead", 0, Math.min(bytes.length, 200));
  if (head < 0 || head + 12 > bytes.length) return undefined;
  const preSkip = bytes[head + 10]! | (bytes[head + 11]! << 8);
  for (let at = bytes.length - 27; at >= 0; at--) {
    if (!startsWith(bytes, at, "OggS")) continue;
    const view = new DataView(bytes.buffer, bytes.byteOffset + at + 6, 8);
    const granule = Number(view.getBigInt64(0, true));
    // -1 marks a page on which no packet ends: an earlier page has the position.
    if (granule < 0) continue;
    return Math.max(0, (granule - preSkip) / OPUS_RATE);
  }
  return undefined;
}

function startsWith(bytes: Uint8Array, at: number, text: string): boolean {
  if (at < 0 || at + text.length > bytes.length) return false;
  for (let index = 0; index < text.length; index++) if (bytes[at + index] !== text.charCodeAt(index)) return false;
  return true;
}

function indexOf(bytes: Uint8Array, text: string, from: number, until: number): number {
  for (let at = from; at + text.length <= until; at++) if (startsWith(bytes, at, text)) return at;
  return -1;
}
