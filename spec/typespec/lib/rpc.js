// Implementation of the decorators declared in rpc.tsp. Each one records its arguments in a
// program state map keyed by a global symbol, which codegen/rpc reads back after compiling.
const key = (name) => Symbol.for(`op-enclave-suite.rpc.${name}`);

function record(name) {
  return (context, target, ...args) => {
    context.program.stateMap(key(name)).set(target, args);
  };
}

/** Like record, but each application adds one entry (decorators apply bottom-up: entries are unshifted). */
function recordEach(name) {
  return (context, target, ...args) => {
    const map = context.program.stateMap(key(name));
    map.set(target, [args, ...(map.get(target) ?? [])]);
  };
}

export const $decorators = {
  Rpc: {
    codec: record("codec"),
    expects: record("expects"),
    rpcService: record("rpcService"),
    rpcServer: recordEach("rpcServer"),
    paramStructure: record("paramStructure"),
    resultName: record("resultName"),
    notTogether: recordEach("notTogether"),
  },
};
