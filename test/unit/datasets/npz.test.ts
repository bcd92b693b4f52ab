import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { csrRows, parseNpy, unzip } from "../../../scripts/lib/npz";

/** An .npy file (format 1.0) of little-endian int32 values. */
function npy(descr: string, shape: string, body: Buffer): Buffer {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += `${" ".repeat(63 - ((10 + header.length) % 64))}\n`;
  const head = Buffer.alloc(10);
  head.write("\x93NUMPY", 0, "latin1");
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, "latin1"), body]);
}
const int32 = (values: number[]) => Buffer.from(Int32Array.from(values).buffer);

/** A zip archive as numpy's savez_compressed writes one (deflate), or stored; CRCs are not checked by the reader. */
function zip(files: Record<string, Buffer>, deflate = true): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = deflate ? deflateRawSync(content) : content;
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(content.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(deflate ? 8 : 0, 10);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(content.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    central.push(entry, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe("scripts/lib/npz: the published q_mat.npz without Python", () => {
  it("reads a scipy.sparse CSR matrix: each row's non-zero columns", () => {
    // 3 items x 4 skills: item 0 -> skill 2; item 1 -> skills 0 and 3; item 2 -> none
    const archive = zip({
      "indices.npy": npy("<i4", "(3,)", int32([2, 0, 3])),
      "indptr.npy": npy("<i4", "(4,)", int32([0, 1, 3, 3])),
      "format.npy": npy("|S3", "()", Buffer.from("csr")),
      "shape.npy": npy("<i8", "(2,)", Buffer.from(BigInt64Array.from([3n, 4n]).buffer)),
      "data.npy": npy("<f8", "(3,)", Buffer.from(Float64Array.from([1, 1, 1]).buffer)),
    });
    expect(csrRows(archive)).toEqual([[2], [0, 3], []]);
    expect(parseNpy(unzip(archive).get("shape.npy") as Buffer)).toEqual({ dtype: "<i8", shape: [2], values: [3, 4] });
  });

  it("reads stored (uncompressed) entries too, and refuses what is not a CSR matrix", () => {
    const stored = zip({ "indptr.npy": npy("<i4", "(2,)", int32([0, 1])), "indices.npy": npy("<i4", "(1,)", int32([5])) }, false);
    expect(csrRows(stored)).toEqual([[5]]);
    expect(() => csrRows(zip({ "indptr.npy": npy("<i4", "(1,)", int32([0])) }))).toThrow(/indices/);
    expect(() => unzip(Buffer.from("not a zip"))).toThrow(/zip/);
    expect(() => parseNpy(Buffer.from("nope"))).toThrow(/npy/);
  });
});
