// Reads the NumPy files the public knowledge-tracing data sets ship (docs/datasets.md): `.npz`
// archives (a zip of `.npy` arrays, stored or deflated) and the scipy.sparse CSR matrix
// `save_npz` writes into one (q_mat.npz: items x skills), so no Python is needed to use them.
import { inflateRawSync } from "node:zlib";

export interface NpyArray {
  dtype: string;
  shape: number[];
  values: number[];
}

/** The entries of a zip archive, by name, decompressed (stored or deflate only: what numpy writes). */
export function unzip(buffer: Buffer): Map<string, Buffer> {
  let eocd = -1;
  for (let i = buffer.length - 22; i >= Math.max(0, buffer.length - 65_557); i--) {
    if (buffer.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("not a zip archive (no end of central directory)");
  const entries = buffer.readUInt16LE(eocd + 10);
  let at = buffer.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let n = 0; n < entries; n++) {
    if (buffer.readUInt32LE(at) !== 0x02014b50) throw new Error("corrupt zip central directory");
    const method = buffer.readUInt16LE(at + 10);
    const size = buffer.readUInt32LE(at + 20);
    const nameLength = buffer.readUInt16LE(at + 28);
    const extraLength = buffer.readUInt16LE(at + 30);
    const commentLength = buffer.readUInt16LE(at + 32);
    const local = buffer.readUInt32LE(at + 42);
    const name = buffer.toString("utf8", at + 46, at + 46 + nameLength);
    const dataStart = local + 30 + buffer.readUInt16LE(local + 26) + buffer.readUInt16LE(local + 28);
    const data = buffer.subarray(dataStart, dataStart + size);
    if (method === 0) out.set(name, Buffer.from(data));
    else if (method === 8) out.set(name, inflateRawSync(data));
    else throw new Error(`${name}: zip compression method ${method} is not supported`);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

/** One `.npy` array of little-endian integers or floats (C order). */
export function parseNpy(buffer: Buffer): NpyArray {
  if (buffer.toString("latin1", 0, 6) !== "\x93NUMPY") throw new Error("not an .npy array");
  const major = buffer[6] ?? 0;
  const headerLength = major === 1 ? buffer.readUInt16LE(8) : buffer.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buffer.toString("latin1", start, start + headerLength);
  const dtype = /'descr':\s*'([^']+)'/.exec(header)?.[1] ?? "";
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (/'fortran_order':\s*True/.test(header)) throw new Error("Fortran-order arrays are not supported");
  const body = buffer.subarray(start + headerLength);
  const readers: Record<string, [number, (offset: number) => number]> = {
    "<i4": [4, (o) => body.readInt32LE(o)],
    "<i8": [8, (o) => Number(body.readBigInt64LE(o))],
    "<f8": [8, (o) => body.readDoubleLE(o)],
    "<f4": [4, (o) => body.readFloatLE(o)],
  };
  const reader = readers[dtype];
  if (!reader) return { dtype, shape, values: [] };
  const [width, read] = reader;
  const values: number[] = [];
  for (let o = 0; o + width <= body.length; o += width) values.push(read(o));
  return { dtype, shape, values };
}

/** A scipy.sparse CSR matrix saved with save_npz: for each row, its non-zero columns. */
export function csrRows(buffer: Buffer): number[][] {
  const arrays = unzip(buffer);
  const array = (name: string) => {
    const file = arrays.get(`${name}.npy`);
    if (!file) throw new Error(`not a scipy.sparse matrix: ${name}.npy missing`);
    return parseNpy(file);
  };
  const format = arrays.get("format.npy");
  if (format && !format.toString("latin1").includes("csr")) throw new Error("only CSR matrices are supported");
  const indptr = array("indptr").values;
  const indices = array("indices").values;
  const rows: number[][] = [];
  for (let r = 0; r + 1 < indptr.length; r++) rows.push(indices.slice(indptr[r], indptr[r + 1]));
  return rows;
}
