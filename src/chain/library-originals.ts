/**
 * The library's own functions behind the engine's replacements in @ethereumjs/evm's tables and prototypes
 * (evm-install.ts). The library is loaded once per process, but the engine's modules can be evaluated more than
 * once in it (a test worker's copy of a module under another URL or after `vi.resetModules()`, two bundles in one
 * process). A second copy that read a slot directly would take the first copy's replacement for the library's
 * function: it would wrap the engine in itself, and compare the engine against itself where a test asks for the
 * library. So the first read of each slot is recorded in one registry per process (globalThis under a `Symbol.for`
 * key, shared by every copy), and every later read of that slot answers the recorded value.
 */

const REGISTRY = Symbol.for("op-engine.library-originals");

type Slots = WeakMap<object, Map<unknown, unknown>>;

function slotsOf(holder: object): Map<unknown, unknown> {
  const global = globalThis as { [REGISTRY]?: Slots };
  const registry = (global[REGISTRY] ??= new WeakMap());
  let slots = registry.get(holder);
  if (slots === undefined) {
    slots = new Map();
    registry.set(holder, slots);
  }
  return slots;
}

function recorded<T>(holder: object, key: unknown, current: () => T): T {
  const slots = slotsOf(holder);
  if (!slots.has(key)) slots.set(key, current());
  return slots.get(key) as T;
}

/** The library's own `holder[key]` (a prototype's method), as it was before any copy of the engine replaced it. */
export function libraryMember(holder: object, key: string): unknown {
  return recorded(holder, key, () => (holder as Record<string, unknown>)[key]);
}

/** The library's own entry `key` of `table` (an opcode table), as it was before any copy of the engine replaced it. */
export function libraryEntry<K, V>(table: Map<K, V>, key: K): V | undefined {
  return recorded(table, key, () => table.get(key));
}
