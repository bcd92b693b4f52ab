/**
 * fast-check arbitraries read off the service's OpenAPI 3.1 document (JSON Schema 2020-12 subset
 * that @hono/zod-openapi emits): values that satisfy a schema, and the schema facts the mutations
 * need (allowed JSON types, limits). Pure: no Workers APIs, so it is usable from any runner.
 */
import fc from "fast-check";

export type Schema = Record<string, any>;
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Vocabulary {
  /** strings of the fuzz world (ids, labels, external ids) tried first for any string schema they satisfy */
  strings: string[];
  /** by property name (singular: `registration_ids` items use `registration_id`): the strings that field usually names */
  byField?: Record<string, string[]>;
}

/**
 * Documented cross-field rules that JSON Schema in the document cannot state, keyed by component
 * name: applied to generated values so a "valid" value satisfies them too. A new schema with such a
 * rule (a refinement zod does not export) makes the valid-input property fail until its rule is
 * listed here (or stated in the schema).
 */
export const CROSS_FIELD_RULES: Record<string, (value: any) => any> = {
  // docs/goals.md "The decided rules": exactly one of targets and topics; one target kind; no duplicate targets or topic ids.
  ScopedGoalRequest: (goal) => {
    const g = { ...goal };
    if (g.targets && g.topics) delete g.topics;
    if (!g.targets && !g.topics) g.targets = { include: ["lref-a"] };
    const kind = (g.targets?.include?.[0] ?? g.topics?.[0]?.targets?.include?.[0] ?? "lref-").slice(0, 5);
    const seen = new Set<string>();
    const fix = (ids: string[]) => {
      const out = ids.map((id) => (id.startsWith(kind) ? id : kind + id.slice(5))).filter((id) => !seen.has(id) && seen.add(id));
      return out.length ? out : [`${kind}${seen.size}-${Math.random().toString(36).slice(2, 6)}`];
    };
    if (g.targets) g.targets = { ...g.targets, include: fix(g.targets.include) };
    if (g.topics) {
      const topicIds = new Set<string>();
      g.topics = g.topics
        .filter((t: any) => !topicIds.has(t.id.trim()) && topicIds.add(t.id.trim()))
        .map((t: any) => ({ ...t, targets: { ...t.targets, include: fix(t.targets.include) } }));
    }
    return g;
  },
  // Exactly one of registration_ids and registration_type.
  GoalAssignmentBatch: (body) => {
    const b = { ...body };
    if (b.registration_ids && b.registration_type) delete b.registration_type;
    if (!b.registration_ids && !b.registration_type) b.registration_type = "learner";
    return b;
  },
  // Proficiency rows name goals and/or objectives (docs/api-conventions.md "Lists, tables and metrics bodies").
  ProficiencyRowsRequest: (body) => (body.goal_ids || body.learning_objective_ids ? body : { ...body, learning_objective_ids: ["lref-a"] }),
  InstanceProficiencyRowsRequest: (body) => (body.goal_ids || body.learning_objective_ids ? body : { ...body, learning_objective_ids: ["lref-a"] }),
  // Active time: end_date on or after start_date, at most 7 days (docs/analytics.md).
  ActiveTimeRowsRequest: (body) => ({ ...body, end_date: body.start_date }),
  InstanceActiveTimeRowsRequest: (body) => ({ ...body, end_date: body.start_date }),
  // Predicted score: group ids are unique (spec 4.7); accounts within the two product limits (docs/security.md "Limits").
  PredictedScoreRequest: (body) => {
    const seen = new Set<string>();
    const groups = body.grouped_learning_objectives.filter((g: any) => !seen.has(g.group_id) && seen.add(g.group_id));
    const objectives = new Set(groups.flatMap((g: any) => g.learning_objectives.map((o: any) => o.learning_objective_id))).size;
    const accounts = Math.max(1, Math.min(10_000 / objectives, 50_000 / ((groups.length + objectives + 1) * body.confidence_levels.length)));
    return { ...body, grouped_learning_objectives: groups, account_ids: body.account_ids.slice(0, Math.floor(accounts)) };
  },
  // Events most recent first (docs/api-conventions.md "Events").
  BatchEvents: (body) => {
    const time = (e: any) => Date.parse(e.interaction_end_time ?? e.time_followed);
    return { ...body, events: [...body.events].sort((a: any, b: any) => time(b) - time(a)) };
  },
};

/** Lists longer than this are never generated at their maximum (none of the API's request lists is). */
const MAXIMA_CAP = 20_000;

export class SchemaReader {
  /**
   * `atMaxima`: values at the documented maxima (docs/security.md "Limits"): most lists at
   * their `maxItems` (lists inside such a list at their usual lengths, so a request stays bounded the
   * way the service bounds it) and most bounded integers at their `maximum` (pages, per-page counts).
   */
  constructor(
    readonly doc: Schema,
    readonly vocabulary: Vocabulary,
    readonly nowMs = Date.now(),
    readonly options: { atMaxima?: boolean } = {},
  ) {}

  /** The schema with $ref resolved and allOf merged (one level of object/string facts). */
  resolve(schema: Schema): Schema {
    let s = schema;
    for (let i = 0; s?.$ref && i < 20; i++) s = this.component(s.$ref);
    if (s?.allOf) {
      const parts = (s.allOf as Schema[]).map((p) => this.resolve(p));
      const merged: Schema = { ...s, allOf: undefined };
      for (const p of parts) {
        if (p.properties) merged.properties = { ...merged.properties, ...p.properties };
        if (p.required) merged.required = [...(merged.required ?? []), ...p.required];
        if (p.pattern) merged.patterns = [...(merged.patterns ?? []), p.pattern];
        for (const [k, v] of Object.entries(p)) if (!["properties", "required", "pattern", "patterns"].includes(k) && merged[k] === undefined) merged[k] = v;
        if (p.patterns) merged.patterns = [...(merged.patterns ?? []), ...p.patterns];
      }
      delete merged.allOf;
      s = merged;
    }
    if (s?.pattern) s = { ...s, patterns: [...(s.patterns ?? []), s.pattern], pattern: undefined };
    return s;
  }

  componentName(schema: Schema): string | undefined {
    return typeof schema?.$ref === "string" ? schema.$ref.split("/").pop() : undefined;
  }

  private component(ref: string): Schema {
    const name = ref.split("/").pop() as string;
    const found = this.doc.components?.schemas?.[name];
    if (!found) throw new Error(`unresolved ${ref}`);
    return found;
  }

  /** The JSON types a schema allows ("integer" implies a number that is whole). */
  types(schema: Schema): Set<string> {
    const s = this.resolve(schema);
    const out = new Set<string>();
    if (s.oneOf || s.anyOf) for (const m of s.oneOf ?? s.anyOf) for (const t of this.types(m)) out.add(t);
    if (s.enum) for (const v of s.enum) out.add(v === null ? "null" : typeof v === "number" ? "number" : typeof v);
    if (s.const !== undefined) out.add(typeof s.const);
    const t = s.type;
    if (Array.isArray(t)) for (const x of t) out.add(x);
    else if (t) out.add(t);
    if (out.size === 0 && s.properties) out.add("object");
    if (out.size === 0) for (const x of ["string", "number", "integer", "boolean", "object", "array", "null"]) out.add(x);
    return out;
  }

  /** The branch of a oneOf/anyOf a value belongs to (by its constants, else the first whose required keys it has). */
  branchFor(schema: Schema, value: unknown): Schema {
    const s = this.resolve(schema);
    const members: Schema[] | undefined = s.oneOf ?? s.anyOf;
    if (!members) return s;
    const scored = members.map((m) => {
      const r = this.resolve(m);
      if (typeof value !== "object" || value === null || Array.isArray(value)) return { m, score: this.types(m).has(jsonType(value)) ? 1 : 0 };
      let score = 0;
      for (const [k, p] of Object.entries<Schema>(r.properties ?? {})) {
        const pr = this.resolve(p);
        const v = (value as Record<string, unknown>)[k];
        if (pr.enum && v !== undefined) score += pr.enum.includes(v) ? 10 : -10;
        if (v !== undefined) score += 1;
      }
      for (const k of r.required ?? []) if ((value as Record<string, unknown>)[k] === undefined) score -= 5;
      return { m, score };
    });
    scored.sort((a, b) => b.score - a.score);
    return this.branchFor(scored[0]!.m, value);
  }

  /**
   * Whether a string satisfies a string schema's length, patterns, enum and format. A string of
   * only whitespace does not count as non-empty: the service trims names and topic ids first.
   */
  stringFits(schema: Schema, value: string): boolean {
    const s = this.resolve(schema);
    const length = [...value].length;
    if (s.minLength !== undefined && [...value.trim()].length < s.minLength) return false;
    if (s.maxLength !== undefined && length > s.maxLength) return false;
    if (s.enum && !s.enum.includes(value)) return false;
    if (s.format === "uuid" && !/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(value)) return false;
    if (s.format === "date-time" && Number.isNaN(Date.parse(value))) return false;
    if (s.format === "duration" && !/^P(\d{1,5}W|(\d{1,5}Y)?(\d{1,5}M)?(\d{1,5}D)?(T(\d{1,5}H)?(\d{1,5}M)?(\d{1,5}S)?)?)$/.test(value)) return false;
    if (s.format === "duration" && (!/[1-9]/.test(value) || value.endsWith("T"))) return false;
    for (const p of s.patterns ?? []) if (!new RegExp(p, "u").test(value)) return false;
    return true;
  }

  /** Values that satisfy the schema (and the documented cross-field rules of its components). */
  valid(schema: Schema, depth = 0, field?: string, insideMaxed = false): fc.Arbitrary<Json> {
    const name = this.componentName(schema);
    const arb = this.validResolved(this.resolve(schema), depth, field, insideMaxed);
    const rule = name ? CROSS_FIELD_RULES[name] : undefined;
    return rule ? arb.map((v) => rule(v) as Json) : arb;
  }

  private validResolved(s: Schema, depth: number, field: string | undefined, insideMaxed: boolean): fc.Arbitrary<Json> {
    if (s.const !== undefined) return fc.constant(s.const);
    if (s.enum) return fc.constantFrom(...(s.enum as Json[]));
    const members: Schema[] | undefined = s.oneOf ?? s.anyOf;
    if (members) return fc.oneof(...members.map((m) => this.valid(m, depth + 1, field, insideMaxed)));
    const types = Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : s.properties ? ["object"] : ["string"];
    return fc.oneof(...types.map((t) => this.ofType(t, s, depth, field, insideMaxed)));
  }

  private ofType(type: string, s: Schema, depth: number, field: string | undefined, insideMaxed: boolean): fc.Arbitrary<Json> {
    const atMaxima = this.options.atMaxima === true;
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer": {
        const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1000);
        const max = Math.min(s.maximum ?? 1000, 2 ** 31);
        const step = s.multipleOf ?? 1;
        const any = fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((k) => k * step);
        if (atMaxima && s.maximum !== undefined)
          return fc.oneof({ arbitrary: fc.constant(Math.floor(max / step) * step), weight: 3 }, { arbitrary: any, weight: 1 });
        return any;
      }
      case "number":
        return fc.double({ min: s.minimum ?? -1000, max: s.maximum ?? 1000, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));
      case "array": {
        const min = s.minItems ?? 0;
        const item = field?.replace(/s$/, "");
        const usual = fc.array(this.valid(s.items ?? {}, depth + 1, item, insideMaxed), {
          minLength: min,
          maxLength: Math.min(s.maxItems ?? min + 4, min + 4),
        }) as fc.Arbitrary<Json>;
        if (!atMaxima || insideMaxed || s.maxItems === undefined || s.maxItems > MAXIMA_CAP) return usual;
        const full = fc.array(this.valid(s.items ?? {}, depth + 1, item, true), { minLength: s.maxItems, maxLength: s.maxItems }) as fc.Arbitrary<Json>;
        return fc.oneof({ arbitrary: full, weight: 3 }, { arbitrary: usual, weight: 1 });
      }
      case "object": {
        const props = Object.fromEntries(Object.entries<Schema>(s.properties ?? {}).map(([k, p]) => [k, this.valid(p, depth + 1, k, insideMaxed)]));
        return fc.record(props, { requiredKeys: (s.required ?? []).filter((k: string) => k in props) }) as fc.Arbitrary<Json>;
      }
      default:
        return this.string(s, field);
    }
  }

  private string(s: Schema, field?: string): fc.Arbitrary<Json> {
    if (s.format === "date-time") {
      return fc.date({ min: new Date(0), max: new Date(this.nowMs - 120_000), noInvalidDate: true }).map((d) => d.toISOString());
    }
    if (s.format === "date") {
      return fc.date({ min: new Date(0), max: new Date(this.nowMs - 120_000), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    }
    const usual = (field ? (this.vocabulary.byField?.[field] ?? []) : []).filter((v) => this.stringFits(s, v));
    const known = [...new Set([...this.vocabulary.strings, ...(s.example !== undefined ? [String(s.example)] : [])])].filter((v) => this.stringFits(s, v));
    const generated = this.generatedString(s);
    if (usual.length) {
      return fc.oneof(
        { arbitrary: fc.constantFrom(...usual), weight: 6 },
        { arbitrary: fc.constantFrom(...(known.length ? known : usual)), weight: 1 },
        ...(generated ? [{ arbitrary: generated as fc.Arbitrary<Json>, weight: 1 }] : []),
      );
    }
    if (known.length && generated) return fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: generated, weight: 1 });
    if (known.length) return fc.constantFrom(...known);
    if (generated) return generated;
    throw new Error(`no generator for string schema ${JSON.stringify(s)}`);
  }

  private generatedString(s: Schema): fc.Arbitrary<string> | undefined {
    if (s.format === "uuid") return fc.uuid({ version: 4 });
    if (s.format === "duration") {
      const n = fc.integer({ min: 1, max: 400 });
      return fc.oneof(
        n.map((w) => `P${w}W`),
        fc.tuple(n, n, n).map(([d, h, m]) => `P${d}DT${h}H${m}M`),
        fc.tuple(n, n).map(([y, mo]) => `P${y}Y${mo}M`),
        n.map((h) => `PT${h}H`),
      );
    }
    const maxLength = Math.min(s.maxLength ?? 30, 30);
    const fits = (v: string) => this.stringFits(s, v);
    let base: fc.Arbitrary<string>;
    const patterns: string[] = s.patterns ?? [];
    // the most specific pattern drives generation (an identifier pattern alone allows almost anything)
    const driver = [...patterns].sort((a, b) => specificity(b) - specificity(a))[0];
    if (driver) {
      try {
        base = fc.stringMatching(new RegExp(driver, "u"));
      } catch {
        return undefined;
      }
    } else base = fc.string({ minLength: s.minLength ?? 0, maxLength });
    const candidate = base.map((v) => (s.maxLength !== undefined ? [...v].slice(0, s.maxLength).join("") : v));
    // give up on a schema whose constraints the generator rarely meets, instead of looping
    let tries = 0;
    let hits = 0;
    for (const v of fc.sample(candidate, { numRuns: 50, seed: 7 })) {
      tries++;
      if (fits(v)) hits++;
    }
    return hits / tries >= 0.2 ? candidate.filter(fits) : undefined;
  }
}

/** How much a pattern constrains: literal characters outside classes count, a bare negated class nearly nothing. */
function specificity(pattern: string): number {
  return pattern.replace(/\[[^\]]*\]/g, "").replace(/[\\^$*+?.()|{}]/g, "").length;
}

export function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}
