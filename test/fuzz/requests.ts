/**
 * Requests for every operation of the OpenAPI document: structurally valid ones, and mutations of
 * them that the service must refuse (400/413/422). Pure: the test file sends them.
 */
import fc from "fast-check";
import { GRAPH_DOCUMENT_MAX_BYTES, MAX_BODY_BYTES } from "../../src/schemas/limits";
import { type Json, jsonType, type Schema, type SchemaReader } from "./schema-arbitraries";

export interface Operation {
  method: string;
  /** path template, e.g. /v0/registrations/{id}/batch-events */
  path: string;
  key: string;
  params: { name: string; in: "path" | "query" | "header"; required: boolean; schema: Schema }[];
  body?: { contentType: string; schema: Schema; required: boolean };
  security: "bearer" | "basic" | "none";
}

export interface FuzzRequest {
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: Json;
  /** a body sent as these bytes instead of the serialized `body` (invalid UTF-8, huge, deep) */
  rawBody?: Uint8Array | string;
}

/** Every operation of the document, in path order, DELETEs last (they remove the fuzz world's resources). */
export function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      const content = op.requestBody?.content ?? {};
      const contentType = Object.keys(content)[0];
      const security = (op.security ?? doc.security ?? []) as Schema[];
      ops.push({
        method: method.toUpperCase(),
        path,
        key: `${method.toUpperCase()} ${path}`,
        params: ((op.parameters ?? []) as Schema[]).map((p) => ({ name: p.name, in: p.in, required: p.required === true, schema: p.schema ?? {} })),
        body: contentType ? { contentType, schema: content[contentType].schema, required: op.requestBody.required === true } : undefined,
        security: security.some((s) => "Bearer" in s) ? "bearer" : security.some((s) => "Basic" in s) ? "basic" : "none",
      });
    }
  }
  // DELETEs last, the most nested resources first (an assignment before its goal before its instance),
  // equally nested ones in reverse document order (registrations before instances before accounts)
  const depth = (op: Operation) => op.path.split("/").length;
  const order = new Map(ops.map((op, i) => [op, i]));
  return ops.sort(
    (a, b) =>
      Number(a.method === "DELETE") - Number(b.method === "DELETE") ||
      (a.method === "DELETE" ? depth(b) - depth(a) || (order.get(b) ?? 0) - (order.get(a) ?? 0) : (order.get(a) ?? 0) - (order.get(b) ?? 0)),
  );
}

/** Where a path parameter's real ids come from: the resource named by the path segment before it. */
export type IdPools = Record<string, string[]>;

export function poolFor(op: Operation, param: string, pools: IdPools): string[] {
  const segments = op.path.split("/");
  const at = segments.indexOf(`{${param}}`);
  const resource = segments[at - 1] ?? "";
  return pools[resource] ?? pools["*"] ?? [];
}

const HEADER_SAFE = /^[\x20-\x7e]*$/;

export class RequestFactory {
  constructor(
    readonly reader: SchemaReader,
    readonly pools: IdPools,
  ) {}

  /** A structurally valid request; `extraFields` adds unknown properties where objects are not strict. */
  valid(op: Operation): fc.Arbitrary<FuzzRequest> {
    const path: Record<string, fc.Arbitrary<string>> = {};
    const query: Record<string, fc.Arbitrary<string>> = {};
    const headers: Record<string, fc.Arbitrary<string>> = {};
    const requiredQuery: string[] = [];
    const requiredHeaders: string[] = [];
    for (const p of op.params) {
      if (p.in === "path") {
        const pool = poolFor(op, p.name, this.pools).filter((id) => this.reader.stringFits(p.schema, id));
        const generated = this.reader.valid(p.schema).map(String);
        path[p.name] = pool.length ? fc.oneof({ arbitrary: fc.constantFrom(...pool), weight: 4 }, { arbitrary: generated, weight: 1 }) : generated;
      } else if (p.in === "query") {
        query[p.name] = this.reader.valid({ ...this.reader.resolve(p.schema), type: nonNullType(this.reader.resolve(p.schema)) }).map(String);
        if (p.required) requiredQuery.push(p.name);
      } else if (p.in === "header") {
        headers[p.name] = this.reader
          .valid(p.schema)
          .map(String)
          .filter((v) => HEADER_SAFE.test(v) && v.trim() === v);
        if (p.required) requiredHeaders.push(p.name);
      }
    }
    const body = op.body ? this.reader.valid(op.body.schema) : fc.constant(undefined);
    return fc
      .record({
        path: fc.record(path),
        query: fc.record(query, { requiredKeys: requiredQuery }),
        headers: fc.record(headers, { requiredKeys: requiredHeaders }),
        body,
        extra: fc.option(fc.tuple(fc.nat(), fc.jsonValue({ maxDepth: 2 })), { freq: 3 }),
      })
      .map(({ extra, ...r }) => {
        const req = r as FuzzRequest;
        // unknown fields are ignored by the non-strict schemas: adding one keeps the request valid
        if (extra && op.body && op.body.contentType === "application/json") addUnknownField(this.reader, op.body.schema, req, extra[0], extra[1] as Json);
        return req;
      });
  }

  /** The mutation kinds that apply to some valid requests of the operation (the mutated property runs only when there are some). */
  mutationKinds(op: Operation, seed: number): MutationKind[] {
    const samples = fc.sample(this.valid(op), { numRuns: 20, seed });
    return MUTATION_KINDS.filter((k) => samples.some((sample, i) => mutate(this.reader, op, structuredClone(sample), k, i) !== undefined));
  }

  /** A valid request with one mutation the service must refuse. */
  mutated(op: Operation, kinds: MutationKind[]): fc.Arbitrary<{ kind: MutationKind; request: FuzzRequest }> {
    return fc
      .tuple(this.valid(op), fc.constantFrom(...kinds), fc.nat())
      .map(([req, kind, choice]) => {
        const request = mutate(this.reader, op, structuredClone(req), kind, choice);
        return request ? { kind, request } : undefined;
      })
      .filter((m): m is { kind: MutationKind; request: FuzzRequest } => m !== undefined);
  }
}

function nonNullType(s: Schema): string | undefined {
  if (!Array.isArray(s.type)) return s.type;
  return (s.type as string[]).find((t) => t !== "null");
}

// --- walking a request alongside its schemas ---

interface Target {
  where: "body" | "path" | "query" | "header";
  schema: Schema;
  value: Json;
  set(v: Json | undefined): void;
  /** for object nodes: property schemas and required keys */
  parentRequired?: boolean;
}

function bodyTargets(reader: SchemaReader, schema: Schema, value: Json, set: (v: Json | undefined) => void, out: Target[], depth = 0): void {
  if (depth > 12) return;
  const s = reader.branchFor(schema, value);
  out.push({ where: "body", schema: s, value, set });
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      bodyTargets(
        reader,
        s.items ?? {},
        item,
        (v) => {
          if (v === undefined) value.splice(i, 1);
          else value[i] = v;
        },
        out,
        depth + 1,
      );
    });
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const ps = s.properties?.[k];
      if (!ps) continue;
      bodyTargets(
        reader,
        ps,
        v,
        (nv) => {
          if (nv === undefined) delete value[k];
          else value[k] = nv;
        },
        out,
        depth + 1,
      );
    }
  }
}

function targetsOf(reader: SchemaReader, op: Operation, req: FuzzRequest): Target[] {
  const out: Target[] = [];
  if (op.body && req.body !== undefined) {
    bodyTargets(
      reader,
      op.body.schema,
      req.body,
      (v) => {
        req.body = v;
      },
      out,
    );
  }
  for (const p of op.params) {
    const bag = p.in === "path" ? req.path : p.in === "query" ? req.query : req.headers;
    if (bag[p.name] === undefined) continue;
    out.push({
      where: p.in,
      schema: reader.resolve(p.schema),
      value: bag[p.name] as string,
      set: (v) => {
        if (v === undefined) delete bag[p.name];
        else bag[p.name] = String(v);
      },
    });
  }
  return out;
}

/** An object schema whose extra fields may hold anything: not `false`, and not a map whose values have a schema (xAPI's language maps). */
function admitsAnyExtraField(schema: Schema): boolean {
  const extra = schema.additionalProperties;
  return extra === undefined || extra === true || (typeof extra === "object" && extra !== null && Object.keys(extra).length === 0);
}

function addUnknownField(reader: SchemaReader, schema: Schema, req: FuzzRequest, choice: number, value: Json): void {
  const objects = targetsOf(
    reader,
    { method: "", path: "", key: "", params: [], body: { contentType: "", schema, required: true }, security: "none" },
    req,
  ).filter((t) => jsonType(t.value) === "object" && admitsAnyExtraField(t.schema));
  const target = objects[choice % Math.max(1, objects.length)];
  if (target) (target.value as Record<string, Json>)[`x_fuzz_unknown_${choice % 97}`] = value;
}

// --- mutations ---

export const MUTATION_KINDS = [
  "wrong-type",
  "out-of-range",
  "missing-required",
  "control-char",
  "invalid-utf8",
  "huge",
  "deep-nesting",
  "strict-unknown-field",
] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

/** Characters no string of the API accepts (identifiers and free text alike), and which a header can carry: DEL, C1, bidi, zero-width. */
const FORBIDDEN_IN_ALL = ["\u0000", "\u0001", "\u001b", "\u007f", "\u0085", "\u009b", "\u202e", "\u2066", "\u200b", "\u2060", "\ufeff"];
const FORBIDDEN_IN_HEADERS = ["\u007f", "\u0085", "\u009b"];
const INVALID_UTF8 = [[0xe9], [0xe8], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xff], [0xf4, 0x90, 0x80, 0x80]];

/** Request bodies: 1 MiB, graph documents GRAPH_DOCUMENT_MAX_BYTES (6 MiB; src/schemas/limits.ts). */
export function bodyLimitOf(op: Operation): number {
  const graphDocument =
    (op.method === "POST" && (op.path === "/v0/graphs" || op.path === "/v0/graphs/validate")) || (op.method === "PUT" && op.path === "/v0/graphs/{graph_id}");
  return graphDocument ? GRAPH_DOCUMENT_MAX_BYTES : MAX_BODY_BYTES;
}

/** A value whose JSON type the schema does not allow. */
function wrongTypeFor(reader: SchemaReader, schema: Schema, choice: number): Json | undefined {
  const allowed = reader.types(schema);
  const candidates: [string, Json][] = [
    ["string", "fuzz-wrong-type"],
    ["integer", 7],
    ["number", 1.5],
    ["boolean", true],
    ["object", { fuzz: 1 }],
    ["array", [1, "x"]],
    ["null", null],
  ];
  const options = candidates.filter(([t]) => !allowed.has(t) && !(t === "integer" && allowed.has("number")));
  return options.length ? options[choice % options.length]![1] : undefined;
}

/** For a parameter (always a string on the wire): a string its schema refuses by type or format. */
function wrongParamFor(reader: SchemaReader, schema: Schema): string | undefined {
  const s = reader.resolve(schema);
  const types = reader.types(s);
  if (types.has("integer") || types.has("number")) return "not-a-number";
  if (types.has("boolean")) return "maybe";
  if (s.enum) return "not-an-option";
  if (s.format === "uuid") return "not-a-uuid";
  return undefined;
}

function outOfRange(reader: SchemaReader, t: Target, choice: number): Json | undefined {
  const s = t.schema;
  const options: Json[] = [];
  if (typeof t.value === "number") {
    if (s.maximum !== undefined) options.push(s.maximum + 1);
    if (s.minimum !== undefined) options.push(s.minimum - 1);
    if (s.type === "integer" && typeof t.value === "number") options.push(t.value + 0.5);
  }
  if (typeof t.value === "string" && t.where !== "header") {
    const n = Number(t.value);
    const types = reader.types(s);
    if ((types.has("integer") || types.has("number")) && !Number.isNaN(n)) {
      if (s.maximum !== undefined) options.push(String(s.maximum + 1));
      if (s.minimum !== undefined) options.push(String(s.minimum - 1));
    } else {
      if (s.maxLength !== undefined) options.push(t.value + "x".repeat(Math.max(1, s.maxLength + 1 - [...t.value].length)));
      if (s.minLength !== undefined && s.minLength > 0 && t.where === "body") options.push("");
      if (s.enum) options.push(`${t.value}-not-an-option`);
    }
  }
  if (t.where === "header" && typeof t.value === "string" && s.maxLength !== undefined) options.push("k".repeat(s.maxLength + 1));
  if (Array.isArray(t.value)) {
    if (s.minItems !== undefined && s.minItems > 0) options.push([]);
    if (s.maxItems !== undefined && s.maxItems < 100_000)
      options.push(Array.from({ length: s.maxItems + 1 }, () => structuredClone(t.value as Json[])[0] ?? "x"));
  }
  return options.length ? options[choice % options.length] : undefined;
}

function serialize(op: Operation, body: Json): string {
  if (op.body?.contentType === "application/x-www-form-urlencoded") {
    return new URLSearchParams(Object.entries((body ?? {}) as Record<string, Json>).map(([k, v]) => [k, String(v)])).toString();
  }
  return JSON.stringify(body);
}

export function bodyText(op: Operation, req: FuzzRequest): string | Uint8Array | undefined {
  if (req.rawBody !== undefined) return req.rawBody;
  return req.body === undefined ? undefined : serialize(op, req.body);
}

/** Applies one mutation of `kind` (choices steered by `choice`), or undefined when it does not apply. */
export function mutate(reader: SchemaReader, op: Operation, req: FuzzRequest, kind: MutationKind, choice: number): FuzzRequest | undefined {
  const targets = targetsOf(reader, op, req);
  const pick = <T>(xs: T[]) => (xs.length ? xs[choice % xs.length] : undefined);
  const form = op.body?.contentType === "application/x-www-form-urlencoded";
  switch (kind) {
    case "wrong-type": {
      const options = targets.filter((t) => (t.where === "body" ? !form || t.value !== req.body : wrongParamFor(reader, t.schema) !== undefined));
      const t = pick(options);
      if (!t) return undefined;
      if (t.where === "body" && form) {
        const bad = wrongParamFor(reader, t.schema);
        if (bad === undefined) return undefined;
        t.set(bad);
        return req;
      }
      const bad = t.where === "body" ? wrongTypeFor(reader, t.schema, choice) : wrongParamFor(reader, t.schema);
      if (bad === undefined) return undefined;
      t.set(bad);
      return req;
    }
    case "out-of-range": {
      const options = targets.map((t) => ({ t, v: outOfRange(reader, t, choice) })).filter((o) => o.v !== undefined);
      const o = pick(options);
      if (!o) return undefined;
      o.t.set(o.v);
      return req;
    }
    case "missing-required": {
      const options: (() => void)[] = [];
      for (const t of targets) {
        if (t.where !== "body" || jsonType(t.value) !== "object") continue;
        for (const k of (t.schema.required ?? []) as string[])
          if ((t.value as Record<string, Json>)[k] !== undefined) options.push(() => delete (t.value as Record<string, Json>)[k]);
      }
      for (const p of op.params) if (p.required && p.in === "query" && req.query[p.name] !== undefined) options.push(() => delete req.query[p.name]);
      if (op.body?.required && req.body !== undefined && !form) options.push(() => (req.rawBody = ""));
      const apply = pick(options);
      if (!apply) return undefined;
      apply();
      return req;
    }
    case "control-char": {
      const strings = targets.filter((t) => typeof t.value === "string");
      const t = pick(strings);
      if (!t) return undefined;
      const chars = t.where === "header" ? FORBIDDEN_IN_HEADERS : FORBIDDEN_IN_ALL;
      const ch = chars[choice % chars.length]!;
      const s = t.value as string;
      const at = t.where === "header" ? Math.max(1, Math.min(s.length - 1, choice % (s.length + 1))) : choice % (s.length + 1);
      if (t.where === "header" && s.length < 2) t.set(`k${ch}k`);
      else t.set(s.slice(0, at) + ch + s.slice(at));
      return req;
    }
    case "invalid-utf8": {
      if (!op.body || req.body === undefined) return undefined;
      const text = serialize(op, req.body);
      const bytes = new TextEncoder().encode(text);
      const bad = INVALID_UTF8[choice % INVALID_UTF8.length]!;
      // at a character boundary (an ASCII byte or the start of a sequence)
      let at = choice % (bytes.length + 1);
      while (at < bytes.length && ((bytes[at] as number) & 0xc0) === 0x80) at++;
      if (form && choice % 2 === 0) {
        req.rawBody = `${text}&scope=jos%E8`;
        return req;
      }
      req.rawBody = new Uint8Array([...bytes.slice(0, at), ...bad, ...bytes.slice(at)]);
      return req;
    }
    case "huge": {
      if (!op.body || req.body === undefined) return undefined;
      const arrays = targets.filter((t) => t.where === "body" && Array.isArray(t.value) && t.schema.maxItems !== undefined);
      const t = pick(arrays);
      if (t && choice % 2 === 0) {
        t.set(Array.from({ length: t.schema.maxItems + 1 }, () => structuredClone((t.value as Json[])[0] ?? "x")));
        return req;
      }
      // a body over the route's size limit (an array of padding in the first object, or a padded form)
      const limit = bodyLimitOf(op);
      if (form) {
        req.rawBody = `${serialize(op, req.body)}&padding=${"x".repeat(limit)}`;
        return req;
      }
      req.rawBody = `{"padding":["${"x".repeat(1024)}"${`,"${"x".repeat(1024)}"`.repeat(Math.ceil(limit / 1027))}],"body":${JSON.stringify(req.body)}}`;
      return req;
    }
    case "deep-nesting": {
      if (!op.body || req.body === undefined || form) return undefined;
      const nodes = targets.filter((t) => t.where === "body");
      const t = pick(nodes);
      if (!t) return undefined;
      const depth = 2000 + (choice % 3000);
      // nesting of a kind the slot does not take (objects with optional fields would accept {"a":{...}})
      const types = reader.types(t.schema);
      const arrays = types.has("object") || (!types.has("array") && choice % 2 === 0);
      const nested = arrays ? "[".repeat(depth) + "]".repeat(depth) : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
      const marker = "__fuzz_deep__";
      t.set(marker);
      req.rawBody = serialize(op, req.body).replace(`"${marker}"`, nested);
      return req;
    }
    case "strict-unknown-field": {
      const strict = targets.filter((t) => t.where === "body" && jsonType(t.value) === "object" && t.schema.additionalProperties === false);
      const t = pick(strict);
      if (!t) return undefined;
      (t.value as Record<string, Json>).fuzz_unknown_field = 1;
      return req;
    }
  }
}

/** The URL of a request (path parameters percent-encoded, query string), relative to the origin. */
export function urlOf(op: Operation, req: FuzzRequest): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(req.path[name] ?? ""));
  const query = new URLSearchParams(Object.entries(req.query)).toString();
  return query ? `${path}?${query}` : path;
}
