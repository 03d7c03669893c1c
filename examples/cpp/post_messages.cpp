// Drives rdmasim as a system simulator would drive its network backend: a ring of hosts
// passes a 1 MiB message around (each host forwards what it received), a timer fires
// meanwhile, and the program prints when each message was delivered and completed.
//
// Usage: post_messages SCENARIO.json [HOSTS]   (the scenario gives the fabric; its own
// workload runs beside these messages)
#include <cstdio>
#include <cstdlib>
#include <rdmasim/simulation.hpp>
#include <string>
#include <vector>

namespace {

double us(rdmasim::Picoseconds t) {
  return static_cast<double>(t) / rdmasim::kMicrosecond;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s SCENARIO.json [HOSTS]\n", argv[0]);
    return 2;
  }
  try {
    rdmasim::Simulation sim = rdmasim::Simulation::from_file(argv[1]);
    const std::vector<std::string> hosts = sim.hosts();
    const size_t ring = argc == 3 ? std::strtoul(argv[2], nullptr, 10) : 4;
    if (ring < 2 || ring > hosts.size()) {
      std::fprintf(stderr, "HOSTS: 2..%zu\n", hosts.size());
      return 2;
    }
    std::printf("scenario %s: %zu hosts, a ring of %zu\n", sim.name().c_str(), hosts.size(), ring);

    // Each host waits for the message from its left neighbour, then sends it on: the
    // receive-then-send chain of a ring collective's steps.
    const int64_t bytes = 1 << 20;
    for (size_t i = 1; i < ring; ++i) {
      sim.recv(hosts[i - 1], hosts[i], /*tag=*/7,
               [&sim, &hosts, i, ring, bytes](const rdmasim::Message& m) {
                 std::printf("  %-6s received %lld B from %-6s at %9.3f us\n", hosts[i].c_str(),
                             static_cast<long long>(m.bytes), m.src.c_str(), us(m.delivered));
                 if (i + 1 < ring) {
                   rdmasim::MessageOptions o;
                   o.tag = 7;
                   sim.send(hosts[i], hosts[i + 1], bytes, {}, o);
                 }
               });
    }
    rdmasim::MessageOptions o;
    o.tag = 7;
    sim.send(
        hosts[0], hosts[1], bytes,
        [](const rdmasim::Message& m) {
          std::printf("  first message acknowledged at %9.3f us (delivered at %.3f us)\n",
                      us(m.completed), us(m.delivered));
        },
        o);
    sim.schedule(50 * rdmasim::kMicrosecond, [&sim] {
      std::printf("  timer at %9.3f us: %llu packet hops so far\n", us(sim.now()),
                  static_cast<unsigned long long>(sim.counters()["packet_hops"]));
    });

    const bool done = sim.run_until_done();
    const rdmasim::Results r = sim.finish();
    std::printf("all done: %s at %.3f us; %zu flows in the run, %llu events\n", done ? "yes" : "no",
                us(r.end_time), r.flows.size(), static_cast<unsigned long long>(r.events));
    return done ? 0 : 1;
  } catch (const rdmasim::InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
