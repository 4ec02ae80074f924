/** One size of a photo as Telegram lists them (an image sent as a file has one size and maybe no dimensions). */
export interface PhotoSize {
  width?: number;
  height?: number;
}

/**
 * The size to read: the largest whose longer edge is within `maxEdge` (models scale bigger images down anyway, and
 * pay for the pixels), else the smallest there is. Sizes without dimensions count as fitting.
 */
export function pickPhotoSize<Size extends PhotoSize>(sizes: readonly Size[], maxEdge: number): Size | undefined {
  const edge = (size: Size) => Math.max(size.width ?? 0, size.height ?? 0);
  const area = (size: Size) => (size.width ?? 0) * (size.height ?? 0);
  const fitting = sizes.filter((size) => edge(size) <= maxEdge);
  if (fitting.length > 0) return fitting.reduce((best, size) => (area(size) > area(best) ? size : best));
  return sizes.reduce<Size | undefined>(
    (best, size) => (best === undefined || area(size) < area(best) ? size : best),
    undefined,
  );
}
