/**
 * A long computation gives the isolate's other requests a turn: after every `budget` units of work it
 * awaits a macrotask, so requests that arrived or whose I/O completed meanwhile run before it goes on.
 * An isolate runs one piece of JavaScript at a time; without this, a request that computes for half a
 * second holds every other request of the isolate for that long. Counted in work, not time: a
 * Worker's clock does not advance while it computes.
 */
export class WorkSlice {
  private done = 0;

  constructor(private readonly budget: number) {}

  async spent(units: number): Promise<void> {
    this.done += units;
    if (this.done < this.budget) return;
    this.done = 0;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
}
