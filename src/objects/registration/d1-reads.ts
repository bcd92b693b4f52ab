/**
 * The D1 reads a RegistrationObject needs (src/reads/): graph versions, item parameters and the
 * population's rates. This object's own reads in progress are merged per key and never shared with
 * other objects (a promise another object's request created cannot be awaited here: src/lib/in-flight.ts);
 * across objects, the reads share resolved values only.
 */
import { openDb } from "../../db/client";
import type { GraphIndex } from "../../graphs/runtime-graph";
import { InFlight } from "../../lib/in-flight";
import type { ItemEntry } from "../../model";
import { loadRuntimeGraph } from "../../reads/graph-versions";
import { loadItemParams } from "../../reads/item-params";
import { loadPopulationRates } from "../../reads/population-rates";
import type { PopulationRates } from "../../tracing/rates";

export class D1Reads {
  readonly #graphLoads = new InFlight<GraphIndex | undefined>();
  readonly #itemLoads = new InFlight<Record<string, ItemEntry>>();
  readonly #rateLoads = new InFlight<PopulationRates>();

  constructor(private readonly db: D1Database) {}

  async graph(graphUuid: string, version: number): Promise<GraphIndex> {
    const graph = await this.#graphLoads.run(`${graphUuid}@${version}`, () => loadRuntimeGraph(openDb(this.db), graphUuid, version));
    if (!graph) throw new Error(`graph ${graphUuid}@${version} is missing`);
    return graph;
  }

  rates(graphUuid: string, nowMs: number): Promise<PopulationRates> {
    return this.#rateLoads.run(graphUuid, () => loadPopulationRates(openDb(this.db), graphUuid, nowMs));
  }

  items(graphUuid: string, nowMs: number): Promise<Record<string, ItemEntry>> {
    return this.#itemLoads.run(graphUuid, () => loadItemParams(openDb(this.db), graphUuid, nowMs));
  }
}
