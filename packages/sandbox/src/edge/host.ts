// Facts about the machine the sandbox runs on that the simulated nodes
// report. They are read here, at the edge, and handed to the nodes as
// options, so that the nodes (and everything under them) use no `process`
// and no `node:` module and can run in a browser page.

/**
 * The kernel version a simulated Node reports (`status.nodeInfo`): the
 * sandbox's own on Linux, the host's platform elsewhere, which is what a
 * node running on that host would show.
 */
export function hostKernelVersion(): string {
  return process.platform === 'linux' ? 'sandbox' : process.platform;
}
