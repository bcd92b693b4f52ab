import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { syntheticGraph } from "../../bench/lib/synthetic-graph";
import type { Schemas } from "../../client";
import preAlgebra from "../../samples/pre-algebra/graph.json";
import { GRAPH_DOCUMENT_MAX_BYTES } from "../../src/schemas/limits";
import { createAccount, createGraph, createInstance, type Json, newPartner, uniqueId } from "../support/api";
import { demoGraph } from "../support/demo-graph";
import { rawCall } from "../support/raw-call";
import { api } from "../support/typed-api";

const clone = <T>(v: T): T => structuredClone(v);
const uniqueLabel = () => uniqueId("gref-t");

describe("POST /v0/graphs", () => {
  it("ingests a document as version 1 with counts", async () => {
    const p = await newPartner();
    const res = await api("POST", "/v0/graphs", { token: p.adminToken, body: demoGraph("gref-one", "One") });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ label: "gref-one", name: "One", version: 1 });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.counts).toEqual({
      learning_objectives: 4,
      prerequisites: 3,
      modules: 12,
      assessment_modules: 8,
      instructional_modules: 4,
      bundles: 4,
      taxa: 2,
    });
  });

  it("refuses a label already used by the partner (422) but another partner may use it", async () => {
    const p = await newPartner();
    await createGraph(p, demoGraph("gref-dup"));
    const again = await api("POST", "/v0/graphs", { token: p.adminToken, body: demoGraph("gref-dup") });
    expect(again.status).toBe(422);
    expect(again.error.details).toEqual([{ path: "body.label", message: expect.stringContaining("already used") }]);
    const q = await newPartner();
    expect((await api("POST", "/v0/graphs", { token: q.adminToken, body: demoGraph("gref-dup") })).status).toBe(201);
  });

  it("answers 400 for structural errors (missing fields, wrong types, unknown module type)", async () => {
    const p = await newPartner();
    const doc: Json = clone(demoGraph(uniqueLabel()));
    delete doc.name;
    doc.modules[0].type = "quiz";
    doc.learning_objectives[1].prerequisites = "lref-a";
    const res = await rawCall("POST", "/v0/graphs", { token: p.adminToken, body: doc });
    expect(res.status).toBe(400);
    const paths = res.body.details.map((d: Json) => d.path);
    expect(paths).toEqual(expect.arrayContaining(["body.name", "body.modules[0].type", "body.learning_objectives[1].prerequisites"]));
  });

  it("answers 422 listing every problem of an invalid document, and stores nothing", async () => {
    const p = await newPartner();
    const doc: Json = clone(demoGraph("gref-bad"));
    doc.modules[12 - 1].learning_objectives = ["lref-zz"];
    doc.learning_objectives[0].prerequisites = ["lref-c"];
    const res = await rawCall("POST", "/v0/graphs", { token: p.adminToken, body: doc });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        { path: "body.modules[11].learning_objectives[0]", message: "unknown learning objective 'lref-zz'" },
        { path: "body.learning_objectives[0].prerequisites[0]", message: expect.stringContaining("lref-a -> lref-c -> lref-b -> lref-a") },
      ]),
    );
    expect((await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-bad" } })).status).toBe(404);
  });
});

describe("OpenAPI", () => {
  it("documents the graph routes", async () => {
    const doc = await rawCall("GET", "/v0/openapi.json");
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(["/v0/graphs", "/v0/graphs/validate", "/v0/graphs/{graph_id}"]));
    expect(doc.body.components.schemas.GraphDocument).toBeDefined();
  });
});

/** The sample as the API document types it (a JSON import widens its enum strings). */
const preAlgebraDoc = preAlgebra as Schemas["GraphDocument"];

describe("the pre-algebra sample", () => {
  it("ingests samples/pre-algebra/graph.json without warnings", async () => {
    const p = await newPartner();
    const check = await api("POST", "/v0/graphs/validate", { token: p.adminToken, body: preAlgebraDoc });
    expect(check.body).toMatchObject({ valid: true, errors: [], warnings: [] });
    const res = await api("POST", "/v0/graphs", { token: p.adminToken, body: preAlgebraDoc });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ label: "gref-pre-algebra", counts: { learning_objectives: 51, modules: 311, bundles: 51 } });
  });
});

describe("POST /v0/graphs/validate: one test per rule (stores nothing)", () => {
  const cases: [string, (d: Json) => void, { path: string; message: RegExp }][] = [
    [
      "duplicate objective id",
      (d) => d.learning_objectives.push({ id: "lref-a", name: "again" }),
      { path: "body.learning_objectives[4].id", message: /duplicate learning objective id 'lref-a' \(first at body.learning_objectives\[0\]\)/ },
    ],
    [
      "duplicate module id",
      (d) => d.modules.push({ ...d.modules[0], name: "again" }),
      { path: "body.modules[12].id", message: /duplicate module id 'mref-a1' \(first at body.modules\[0\]\)/ },
    ],
    ["bundle id clashing with a module id", (d) => (d.bundles[0].id = "mref-b1"), { path: "body.bundles[0].id", message: /duplicate module id 'mref-b1'/ }],
    ["duplicate taxon id", (d) => (d.taxonomy[1].id = d.taxonomy[0].id), { path: "body.taxonomy[1].id", message: /duplicate taxon id/ }],
    ["graph label prefix", (d) => (d.label = "algebra"), { path: "body.label", message: /graph label 'algebra' must start with 'gref-'/ }],
    [
      "objective prefix",
      (d) => d.learning_objectives.push({ id: "lo-e", name: "e" }),
      { path: "body.learning_objectives[4].id", message: /learning objective id 'lo-e' must start with 'lref-'/ },
    ],
    [
      "module prefix",
      (d) => d.modules.push({ id: "q-2", name: "q", type: "both", learning_objectives: ["lref-a"] }),
      { path: "body.modules[12].id", message: /module id 'q-2' must start with 'mref-'/ },
    ],
    ["bundle prefix", (d) => (d.bundles[1].id = "set-b"), { path: "body.bundles[1].id", message: /bundle id 'set-b' must start with 'mref-'/ }],
    ["taxon prefix", (d) => (d.taxonomy[0].id = "TOC:Unit1"), { path: "body.taxonomy[0].id", message: /taxon id 'TOC:Unit1' must start with 'tref-'/ }],
    [
      "dangling prerequisite",
      (d) => d.learning_objectives[2].prerequisites.push("lref-nope"),
      { path: "body.learning_objectives[2].prerequisites[1]", message: /unknown learning objective 'lref-nope'/ },
    ],
    [
      "dangling module objective",
      (d) => (d.modules[12 - 1].learning_objectives = ["lref-x"]),
      { path: "body.modules[11].learning_objectives[0]", message: /unknown learning objective 'lref-x'/ },
    ],
    ["dangling bundle member", (d) => d.bundles[2].modules.push("mref-ghost"), { path: "body.bundles[2].modules[3]", message: /unknown module 'mref-ghost'/ }],
    [
      "dangling taxonomy module",
      (d) => d.taxonomy[1].modules.push("mref-ghost"),
      { path: "body.taxonomy[1].modules[6]", message: /unknown module 'mref-ghost'/ },
    ],
    [
      "prerequisite cycle",
      (d) => d.learning_objectives[0].prerequisites.push("lref-b"),
      { path: "body.learning_objectives[0].prerequisites[0]", message: /prerequisite cycle: lref-a -> lref-b -> lref-a/ },
    ],
    [
      "self prerequisite",
      (d) => d.learning_objectives[3].prerequisites.push("lref-d"),
      { path: "body.learning_objectives[3].prerequisites[1]", message: /prerequisite cycle: lref-d -> lref-d/ },
    ],
    [
      "module aligned to no objective",
      (d) => (d.modules[4].learning_objectives = []),
      { path: "body.modules[4].learning_objectives", message: /module 'mref-b2' is aligned to no learning objective/ },
    ],
    [
      "bundle containing a bundle",
      (d) => d.bundles[0].modules.push("mref-set-b"),
      { path: "body.bundles[0].modules[3]", message: /bundle 'mref-set-a' contains bundle 'mref-set-b'; bundles may contain atoms only/ },
    ],
    ["empty bundle", (d) => (d.bundles[3].modules = []), { path: "body.bundles[3].modules", message: /contains no modules/ }],
  ];

  it.each(cases)("%s", async (_name, mutate, expected) => {
    const p = await newPartner();
    const doc: Json = clone(demoGraph(uniqueLabel()));
    mutate(doc);
    const res = await rawCall("POST", "/v0/graphs/validate", { token: p.adminToken, body: doc });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]!.path).toBe(expected.path);
    expect(res.body.errors[0]!.message).toMatch(expected.message);
    expect((await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: doc.label } })).status).toBe(404);
  });

  it("reports a valid document with warnings and counts", async () => {
    const p = await newPartner();
    const doc: Json = clone(demoGraph(uniqueLabel()));
    doc.learning_objectives.push({ id: "lref-lonely", name: "No modules yet" });
    const res = await rawCall("POST", "/v0/graphs/validate", { token: p.adminToken, body: doc });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, errors: [], counts: { learning_objectives: 5, modules: 12 } });
    expect(res.body.warnings).toEqual([{ path: "body.learning_objectives[4]", message: "learning objective 'lref-lonely' has no aligned modules" }]);
  });
});

describe("size limits and body limits", () => {
  it("accepts a 20,000-module graph body over 1 MiB on POST /v0/graphs and serves it back", async () => {
    const p = await newPartner();
    const doc = syntheticGraph(20_000, 2_000, "gref-big");
    const body = JSON.stringify(doc);
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await rawCall("POST", "/v0/graphs", { token: p.adminToken, raw: body, headers: { "Content-Type": "application/json" } });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
    expect(res.body.counts.modules).toBe(20_000);
    const got = await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-big" } });
    expect(got.status).toBe(200);
    expect(got.body.modules).toHaveLength(20_000);
    expect(got.body.modules[19_999]).toMatchObject({ id: "mref-m19999", uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it("refuses more than 20,000 modules and more than 2,000 objectives (422 naming the array)", async () => {
    const p = await newPartner();
    const doc = syntheticGraph(20_001, 2_001, uniqueLabel());
    const res = await api("POST", "/v0/graphs", { token: p.adminToken, body: doc });
    expect(res.status).toBe(422);
    expect(res.error.details).toEqual([
      { path: "body.modules", message: "a graph holds at most 20000 modules; this one has 20001" },
      { path: "body.learning_objectives", message: "a graph holds at most 2000 learning objectives; this one has 2001" },
    ]);
  });

  it("keeps the 1 MiB limit on other routes (413)", async () => {
    const p = await newPartner();
    const res = await api("POST", "/v0/accounts", { token: p.adminToken, body: { external_user_id: "x".repeat(1024 * 1024 + 10) } });
    expect(res.status).toBe(413);
    const li = await api("POST", "/v0/learning-instances", { token: p.adminToken, body: { graph_id: "gref-demo", name: "y".repeat(1024 * 1024 + 10) } });
    expect(li.status).toBe(413);
  });

  it("refuses graph bodies over 6 MiB (413)", async () => {
    const p = await newPartner();
    const res = await rawCall("POST", "/v0/graphs/validate", {
      token: p.adminToken,
      raw: JSON.stringify({ label: "gref-huge", name: "n".repeat(GRAPH_DOCUMENT_MAX_BYTES + 1), learning_objectives: [], modules: [] }),
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(413);
  });
});

describe("PUT /v0/graphs/{graph_id}: additive versions", () => {
  it("accepts additions and renames as a new version, keeping module uuids; old versions stay readable", async () => {
    const p = await newPartner();
    const created = await createGraph(p, demoGraph("gref-up"));
    const v1 = (await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-up" } })).body;
    const doc: Json = clone(demoGraph("gref-up", "Renamed graph"));
    doc.learning_objectives[0].name = "Renamed objective";
    doc.modules[0].name = "Renamed question";
    doc.learning_objectives.push({ id: "lref-e", name: "New objective", prerequisites: ["lref-d"] });
    doc.modules.push({ id: "mref-e1", name: "New question", type: "both", learning_objectives: ["lref-e"] });
    const res = await rawCall("PUT", `/v0/graphs/${created.id}`, { token: p.adminToken, body: doc });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, label: "gref-up", name: "Renamed graph", version: 2, counts: { learning_objectives: 5, modules: 13 } });

    const v2 = (await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-up" } })).body;
    expect(v2.version).toBe(2);
    expect(v2.learning_objectives[0]!.name).toBe("Renamed objective");
    expect(v2.modules[0]!.uuid).toBe(v1.modules[0]!.uuid);
    expect(v2.bundles![0]!.uuid).toBe(v1.bundles![0]!.uuid);
    expect(v2.modules[12]).toMatchObject({ id: "mref-e1", uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const old = await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-up" }, query: { version: 1 } });
    expect(old.body).toMatchObject({ version: 1, name: "Demo graph" });
    expect((await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-up" }, query: { version: 3 } })).status).toBe(404);

    const third = await rawCall("PUT", "/v0/graphs/gref-up", { token: p.adminToken, body: doc });
    expect(third.body.version).toBe(3);
  });

  it("refuses an update that removes objectives or modules (422 listing them), version unchanged", async () => {
    const p = await newPartner();
    await createGraph(p, demoGraph("gref-rm"));
    const doc: Json = clone(demoGraph("gref-rm"));
    doc.learning_objectives = doc.learning_objectives.filter((o: Json) => o.id !== "lref-d");
    doc.modules = doc.modules.filter((m: Json) => !m.id.startsWith("mref-d"));
    doc.bundles = doc.bundles.filter((b: Json) => b.id !== "mref-set-d");
    doc.taxonomy[1].modules = ["mref-c1", "mref-c2", "mref-c3"]; // the removed mref-d* only: not reported again
    const res = await rawCall("PUT", "/v0/graphs/gref-rm", { token: p.adminToken, body: doc });
    expect(res.status).toBe(422);
    const messages = res.body.details.map((d: Json) => d.message).join("\n");
    for (const id of ["lref-d", "mref-d1", "mref-d2", "mref-d3", "mref-set-d"]) expect(messages).toContain(`'${id}'`);
    expect(res.body.details).toHaveLength(5);
    expect((await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-rm" } })).body.version).toBe(1);
  });

  it("accepts an additive update: new prerequisites, alignments, bundle members, taxon modules and taxa", async () => {
    const p = await newPartner();
    await createGraph(p, demoGraph("gref-add"));
    const doc: Json = clone(demoGraph("gref-add"));
    doc.learning_objectives[1].prerequisites = ["lref-a", "lref-d"]; // lref-b gains lref-d
    doc.modules[0].learning_objectives = ["lref-a", "lref-b"]; // mref-a1 gains lref-b
    doc.modules[0].name = "Renamed";
    doc.bundles[0].modules.push("mref-b1"); // mref-set-a gains a member
    doc.bundles[0].name = "Renamed set";
    doc.taxonomy[0].modules.push("mref-c1"); // tref-TOC:Unit1 gains a module
    doc.taxonomy.push({ id: "tref-TOC:Unit3", modules: ["mref-d1"] });
    doc.modules.push({ id: "mref-a4", name: "New", type: "both", learning_objectives: ["lref-a"] });
    const res = await rawCall("PUT", "/v0/graphs/gref-add", { token: p.adminToken, body: doc });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ version: 2, counts: { modules: 13, taxa: 3, prerequisites: 4 } });
  });

  describe("refuses a non-additive change to a kept id (422 naming the id), version unchanged", () => {
    const cases: [string, (doc: Json) => void, { path: string; message: RegExp }][] = [
      [
        "an objective losing a prerequisite",
        (d) => (d.learning_objectives[2].prerequisites = []),
        { path: "body.learning_objectives[2].prerequisites", message: /'lref-c' lost prerequisite\(s\) 'lref-b'/ },
      ],
      [
        "a module losing an aligned objective (even while gaining another)",
        (d) => (d.modules[0].learning_objectives = ["lref-b"]),
        { path: "body.modules[0].learning_objectives", message: /'mref-a1' lost aligned learning objective\(s\) 'lref-a'/ },
      ],
      [
        "a module changing its type",
        (d) => (d.modules[2].type = "both"),
        { path: "body.modules[2].type", message: /'mref-a3' changed type from 'instructional' to 'both'/ },
      ],
      [
        "an atom becoming a bundle",
        (d) => {
          d.modules = d.modules.filter((m: Json) => m.id !== "mref-d3");
          d.bundles[3].modules = ["mref-d1", "mref-d2"];
          d.bundles.push({ id: "mref-d3", name: "Now a bundle", modules: ["mref-d1"] });
        },
        { path: "body.bundles[4]", message: /'mref-d3' was a module and is now a bundle/ },
      ],
      [
        "a bundle becoming an atom",
        (d) => {
          d.bundles = d.bundles.filter((b: Json) => b.id !== "mref-set-d");
          d.modules.push({ id: "mref-set-d", name: "Now an atom", type: "assessment", learning_objectives: ["lref-d"] });
        },
        { path: "body.modules[12]", message: /'mref-set-d' was a bundle and is now a module/ },
      ],
      [
        "a bundle losing a member",
        (d) => (d.bundles[0].modules = ["mref-a1", "mref-a3", "mref-b1"]),
        { path: "body.bundles[0].modules", message: /'mref-set-a' lost member\(s\) 'mref-a2'/ },
      ],
      [
        "a taxon losing a module",
        (d) => (d.taxonomy[0].modules = d.taxonomy[0].modules.filter((m: string) => m !== "mref-b3")),
        { path: "body.taxonomy[0].modules", message: /'tref-TOC:Unit1' lost module\(s\) 'mref-b3'/ },
      ],
      ["a taxon removed", (d) => (d.taxonomy = [d.taxonomy[0]]), { path: "body.taxonomy", message: /taxon 'tref-TOC:Unit2' was removed/ }],
    ];
    for (const [name, mutate, detail] of cases) {
      it(name, async () => {
        const p = await newPartner();
        const label = uniqueLabel();
        await createGraph(p, demoGraph(label));
        const doc: Json = clone(demoGraph(label));
        mutate(doc);
        const res = await rawCall("PUT", `/v0/graphs/${label}`, { token: p.adminToken, body: doc });
        expect(res.status, JSON.stringify(res.body)).toBe(422);
        expect(res.body.details).toEqual(expect.arrayContaining([{ path: detail.path, message: expect.stringMatching(detail.message) }]));
        expect((await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: label } })).body.version).toBe(1);
      });
    }

    it("lists every problem at once", async () => {
      const p = await newPartner();
      await createGraph(p, demoGraph("gref-many"));
      const doc: Json = clone(demoGraph("gref-many"));
      doc.learning_objectives[2].prerequisites = [];
      doc.modules[2].type = "assessment";
      doc.bundles[1].modules = ["mref-b1"];
      const res = await rawCall("PUT", "/v0/graphs/gref-many", { token: p.adminToken, body: doc });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: Json) => d.path)).toEqual([
        "body.learning_objectives[2].prerequisites",
        "body.modules[2].type",
        "body.bundles[1].modules",
      ]);
    });
  });

  it("refuses a changed label and an invalid document (422)", async () => {
    const p = await newPartner();
    await createGraph(p, demoGraph("gref-lbl"));
    const renamed = await api("PUT", "/v0/graphs/{graph_id}", { token: p.adminToken, body: demoGraph("gref-other"), path: { graph_id: "gref-lbl" } });
    expect(renamed.status).toBe(422);
    expect(renamed.error.details![0]!.path).toBe("body.label");
    const doc: Json = clone(demoGraph("gref-lbl"));
    doc.modules[0].learning_objectives = [];
    const bad = await rawCall("PUT", "/v0/graphs/gref-lbl", { token: p.adminToken, body: doc });
    expect(bad.status).toBe(422);
    expect(bad.body.details[0].path).toBe("body.modules[0].learning_objectives");
  });
});

describe("GET /v0/graphs and /v0/graphs/{graph_id}", () => {
  it("returns the document with id, version and module uuids, by uuid or label", async () => {
    const p = await newPartner();
    const created = await createGraph(p, demoGraph("gref-get"));
    for (const ref of [created.id, "gref-get", created.id.toUpperCase()]) {
      const res = await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: ref } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: created.id, label: "gref-get", version: 1, name: "Demo graph" });
      expect(res.body.learning_objectives).toEqual(demoGraph().learning_objectives);
      expect(res.body.modules).toHaveLength(12);
      for (const m of [...res.body.modules, ...res.body.bundles!]) expect(m.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
      expect(new Set(res.body.modules.map((m: Json) => m.uuid)).size).toBe(12);
      expect(res.body.taxonomy).toEqual(demoGraph().taxonomy);
    }
  });

  it("answers the graph's created_at and the version's updated_at, as the list does, after an update too", async () => {
    const p = await newPartner();
    const label = uniqueLabel();
    await createGraph(p, demoGraph(label));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await rawCall("PUT", `/v0/graphs/${label}`, { token: p.adminToken, body: demoGraph(label, "Renamed") })).status).toBe(200);
    const [listed] = (await api("GET", "/v0/graphs", { token: p.adminToken })).body;
    expect(Date.parse(listed!.updated_at)).toBeGreaterThan(Date.parse(listed!.created_at));
    const latest = await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: label } });
    expect(latest.body).toMatchObject({ version: 2, name: "Renamed", created_at: listed!.created_at, updated_at: listed!.updated_at });
    const first = await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: label }, query: { version: 1 } });
    expect(first.body).toMatchObject({ version: 1, created_at: listed!.created_at, updated_at: listed!.created_at });
  });

  it("lists the partner's graphs as a bare array, paged", async () => {
    const p = await newPartner();
    await createGraph(p, demoGraph("gref-l1"));
    await createGraph(p, demoGraph("gref-l2"));
    await createGraph(p, demoGraph("gref-l3"));
    const all = await api("GET", "/v0/graphs", { token: p.adminToken });
    expect(all.status).toBe(200);
    expect(all.body.map((g: Json) => g.label)).toEqual(["gref-l1", "gref-l2", "gref-l3"]);
    expect(all.body[0]).toMatchObject({ version: 1, name: "Demo graph", counts: { modules: 12 } });
    const page = await api("GET", "/v0/graphs", { token: p.adminToken, query: { offset: 1, limit: 1 } });
    expect(page.body.map((g: Json) => g.label)).toEqual(["gref-l2"]);
    expect((await api("GET", "/v0/graphs", { token: p.adminToken, query: { limit: 501 } })).status).toBe(400);
  });

  it("never shows another partner's graph (404) nor lists it", async () => {
    const p = await newPartner();
    const q = await newPartner();
    const created = await createGraph(p, demoGraph("gref-mine"));
    for (const ref of [created.id, "gref-mine"]) {
      expect((await api("GET", "/v0/graphs/{graph_id}", { token: q.adminToken, path: { graph_id: ref } })).status).toBe(404);
      expect((await api("PUT", "/v0/graphs/{graph_id}", { token: q.adminToken, body: demoGraph("gref-mine"), path: { graph_id: ref } })).status).toBe(404);
    }
    expect((await api("GET", "/v0/graphs", { token: q.adminToken })).body).toEqual([]);
  });
});

describe("caller rules and entitlements", () => {
  it("an end-user token may read graphs but not ingest, validate or update them (403)", async () => {
    const p = await newPartner();
    await createGraph(p, demoGraph("gref-ro"));
    const user = await createAccount(p);
    const token = await p.tokenFor(user.external_user_id);
    expect((await api("POST", "/v0/graphs", { token, body: demoGraph("gref-u") })).status).toBe(403);
    expect((await api("POST", "/v0/graphs/validate", { token, body: demoGraph("gref-u") })).status).toBe(403);
    expect((await api("PUT", "/v0/graphs/{graph_id}", { token, body: demoGraph("gref-ro"), path: { graph_id: "gref-ro" } })).status).toBe(403);
    expect((await api("GET", "/v0/graphs/{graph_id}", { token, path: { graph_id: "gref-ro" } })).status).toBe(200);
    expect((await api("GET", "/v0/graphs", { token })).status).toBe(200);
  });

  it("an admin account without the graph entitlements is refused (403)", async () => {
    const p = await newPartner();
    await createGraph(p, demoGraph("gref-ent"));
    await env.DB.prepare("UPDATE accounts SET entitlements = ? WHERE id = ?")
      .bind(JSON.stringify(["partner_admin"]), p.admin_account_id)
      .run();
    const ingest = await api("POST", "/v0/graphs", { token: p.adminToken, body: demoGraph("gref-ent2") });
    expect(ingest.status).toBe(403);
    expect(ingest.error.message).toContain("partner_graph_ingest");
    expect((await api("POST", "/v0/graphs/validate", { token: p.adminToken, body: demoGraph("gref-ent2") })).status).toBe(403);
    expect((await api("PUT", "/v0/graphs/{graph_id}", { token: p.adminToken, body: demoGraph("gref-ent"), path: { graph_id: "gref-ent" } })).status).toBe(403);
    await env.DB.prepare("UPDATE accounts SET entitlements = ? WHERE id = ?")
      .bind(JSON.stringify(["all"]), p.admin_account_id)
      .run();
    expect((await api("POST", "/v0/graphs", { token: p.adminToken, body: demoGraph("gref-ent2") })).status).toBe(201);
  });
});

describe("learning instances validate graph_id", () => {
  it("accepts the graph's uuid or gref label and echoes what was sent", async () => {
    const p = await newPartner();
    const g = await createGraph(p, demoGraph("gref-course"));
    const byLabel = await api("POST", "/v0/learning-instances", { token: p.adminToken, body: { graph_id: "gref-course", name: "A" } });
    expect(byLabel.status).toBe(201);
    expect(byLabel.body.graph_id).toBe("gref-course");
    const byUuid = await api("POST", "/v0/learning-instances", { token: p.adminToken, body: { graph_id: g.id, name: "B" } });
    expect(byUuid.status).toBe(201);
    expect(byUuid.body.graph_id).toBe(g.id);
    const row = await env.DB.prepare("SELECT graph_uuid FROM learning_instances WHERE id = ?").bind(byLabel.body.id).first<{ graph_uuid: string }>();
    expect(row?.graph_uuid).toBe(g.id);
    // the immutable graph_id may be repeated on PUT as sent or as the uuid
    expect((await api("PUT", "/v0/learning-instances/{id}", { token: p.adminToken, body: { graph_id: g.id }, path: { id: byLabel.body.id } })).status).toBe(
      200,
    );
  });

  it("refuses an unknown graph or another partner's graph (422 at body.graph_id)", async () => {
    const p = await newPartner();
    const q = await newPartner();
    const theirs = await createGraph(q, demoGraph("gref-theirs"));
    for (const graph_id of ["gref-nope", crypto.randomUUID(), "gref-theirs", theirs.id]) {
      const res = await api("POST", "/v0/learning-instances", { token: p.adminToken, body: { graph_id, name: "C" } });
      expect(res.status).toBe(422);
      expect(res.error.details).toEqual([{ path: "body.graph_id", message: expect.stringContaining("unknown graph") }]);
    }
  });

  it("createInstance ingests gref-demo on first use", async () => {
    const p = await newPartner();
    const li = await createInstance(p);
    expect(li.graph_id).toBe("gref-demo");
    expect((await api("GET", "/v0/graphs/{graph_id}", { token: p.adminToken, path: { graph_id: "gref-demo" } })).status).toBe(200);
  });
});
