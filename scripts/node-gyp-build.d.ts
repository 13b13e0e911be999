/**
 * node-gyp-build 4 (CommonJS, no types of its own): `path(dir)` answers the addon file the package in `dir` loads
 * on this platform (a build/Release binary, else its matching prebuild), as the package itself finds it at run time.
 */
declare module "node-gyp-build" {
  interface NodeGypBuild {
    (dir: string): unknown;
    path(dir: string): string;
  }
  const nodeGypBuild: NodeGypBuild;
  export default nodeGypBuild;
}
