// Small real images for the branding tests.

/** A real 1×1 PNG. */
export const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** Whether two images decode to the same pixels (a stored logo is encoded again, so its bytes differ). */
export async function samePixels(a: Buffer, b: Buffer): Promise<boolean> {
  const { default: sharp } = await import('sharp');
  const [x, y] = await Promise.all([a, b].map((img) => sharp(img).ensureAlpha().raw().toBuffer({ resolveWithObject: true })));
  return x!.info.width === y!.info.width && x!.info.height === y!.info.height && x!.data.equals(y!.data);
}
