/**
 * JSON with sorted keys: equal values give equal strings whatever their key order or encoding (a
 * JSON-decoded and a MessagePack-decoded copy of one request compare equal). Absent (`undefined`) fields
 * are left out, as both encodings leave them out. Used to compare variants within a GRPO group and to
 * recognise a re-sent request (docs/PROTOCOL.md "Sessions").
 */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    if (v instanceof Uint8Array) return `{"$bin":"${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')}"}`;
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  if (typeof v === 'bigint') return `${v}n`;
  return JSON.stringify(v) ?? 'null';
}
