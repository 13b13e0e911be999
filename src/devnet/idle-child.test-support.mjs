// A child that idles until it is killed (src/devnet/worker-hosts.test.ts supervises it as a worker host).
/* global setInterval, console */
setInterval(() => {}, 1 << 30);
console.log("idle child up");
