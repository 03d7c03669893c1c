// build_fabric: port assignment and every refusal, each with the path a user would look at.
#include "topologies/topology.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

using namespace topo;

namespace {

constexpr int64_t k100G = 100'000'000'000;
constexpr int64_t k1us = 1'000'000;

Node host(const std::string& name) {
  return Node{name, NodeKind::Host, 0, 0, -1};
}
Node switch_node(const std::string& name, int radix = 0) {
  return Node{name, NodeKind::Switch, radix, 1, -1};
}
Link cable(int a, int b) {
  return Link{a, b, k100G, k1us, 0.0, -1, -1};
}

// h0 and h1 on switch s0.
Topology two_hosts_one_switch() {
  Topology t;
  t.name = "tiny";
  t.nodes = {host("h0"), host("h1"), switch_node("s0")};
  t.links = {cable(0, 2), cable(1, 2)};
  return t;
}

// Builds `t`, expecting a refusal at `path` whose message mentions `words`.
void expect_refused(Topology t, const std::string& path, const std::string& words) {
  try {
    build_fabric(std::move(t));
    FAIL("expected TopologyError at " << path);
  } catch (const TopologyError& e) {
    INFO("message: " << e.what());
    CHECK(e.path == path);
    CHECK(std::string(e.what()).find(words) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("topology: ports are assigned in link order and both ends agree", "[unit]") {
  const Fabric f = build_fabric(two_hosts_one_switch());
  REQUIRE(f.ports.size() == 3);
  REQUIRE(f.ports[2].size() == 2);
  CHECK(f.ports[2][0].peer_node == 0);
  CHECK(f.ports[2][1].peer_node == 1);
  for (int n = 0; n < 3; ++n) {
    for (int p = 0; p < static_cast<int>(f.ports[n].size()); ++p) {
      const PortRef& ref = f.ports[n][p];
      const PortRef& back = f.ports[ref.peer_node][ref.peer_port];
      CHECK(back.peer_node == n);
      CHECK(back.peer_port == p);
      CHECK(back.link == ref.link);
      CHECK(back.is_a_side != ref.is_a_side);
    }
  }
  // Resolved ports are written back into the links.
  CHECK(f.topo.links[1].a_port == 0);
  CHECK(f.topo.links[1].b_port == 1);
}

TEST_CASE("topology: hosts are numbered in node order and names are indexed", "[unit]") {
  Topology t;
  t.nodes = {switch_node("s0"), host("a"), switch_node("s1"), host("b")};
  t.links = {cable(1, 0), cable(0, 2), cable(2, 3)};
  const Fabric f = build_fabric(t);
  CHECK(f.host_node == std::vector<int>{1, 3});
  CHECK(f.host_index == std::vector<int>{-1, 0, -1, 1});
  CHECK(f.node_by_name("s1") == 2);
  CHECK(f.node_by_name("b") == 3);
  CHECK(f.node_by_name("nope") == -1);
}

TEST_CASE("topology: explicit ports are placed first, implicit ones fill the lowest gaps",
          "[unit]") {
  Topology t;
  t.nodes = {host("h0"), host("h1"), host("h2"), switch_node("s0")};
  // h0 takes the next free port, h1 asks for 0 explicitly, h2 asks for 3: h0 must get 1 (0 is
  // claimed by a later link), and port 2 stays unused.
  t.links = {cable(0, 3), cable(1, 3), cable(2, 3)};
  t.links[1].b_port = 0;
  t.links[2].b_port = 3;
  const Fabric f = build_fabric(t);
  REQUIRE(f.ports[3].size() == 4);
  CHECK(f.ports[3][0].peer_node == 1);
  CHECK(f.ports[3][1].peer_node == 0);
  CHECK(f.ports[3][2].link == -1);
  CHECK(f.ports[3][3].peer_node == 2);
}

TEST_CASE("topology: refused inputs name the offending item", "[unit]") {
  SECTION("self-loop") {
    Topology t = two_hosts_one_switch();
    t.links.push_back(cable(2, 2));
    expect_refused(t, "links[2]", "s0 to itself");
  }
  SECTION("duplicate name") {
    Topology t = two_hosts_one_switch();
    t.nodes[1].name = "h0";
    expect_refused(t, "nodes[1].name", "\"h0\"");
  }
  SECTION("empty name") {
    Topology t = two_hosts_one_switch();
    t.nodes[0].name = "";
    expect_refused(t, "nodes[0].name", "empty");
  }
  SECTION("zero rate") {
    Topology t = two_hosts_one_switch();
    t.links[1].rate_bps = 0;
    expect_refused(t, "links[1].rate", "got 0");
  }
  SECTION("zero latency") {
    Topology t = two_hosts_one_switch();
    t.links[0].latency_ps = 0;
    expect_refused(t, "links[0].latency", "got 0");
  }
  SECTION("loss rate 1") {
    Topology t = two_hosts_one_switch();
    t.links[0].loss_rate = 1.0;
    expect_refused(t, "links[0].loss_rate", "[0, 1)");
  }
  SECTION("loss rate negative or NaN") {
    Topology t = two_hosts_one_switch();
    t.links[1].loss_rate = -0.1;
    expect_refused(t, "links[1].loss_rate", "[0, 1)");
    t.links[1].loss_rate = std::nan("");
    expect_refused(t, "links[1].loss_rate", "[0, 1)");
  }
  SECTION("node index out of range") {
    Topology t = two_hosts_one_switch();
    t.links[1].b = 7;
    expect_refused(t, "links[1].b", "7");
  }
  SECTION("disconnected") {
    Topology t = two_hosts_one_switch();
    t.nodes.push_back(switch_node("lonely"));
    expect_refused(t, "nodes[3]", "node lonely is not connected to host h0");
  }
  SECTION("radix exceeded") {
    Topology t = two_hosts_one_switch();
    t.nodes[2].radix = 1;
    expect_refused(t, "nodes[2].radix", "2 links");
  }
  SECTION("explicit port beyond radix") {
    Topology t = two_hosts_one_switch();
    t.nodes[2].radix = 4;
    t.links[0].b_port = 4;
    expect_refused(t, "links[0].b_port", "0..3");
  }
  SECTION("duplicate explicit port") {
    Topology t = two_hosts_one_switch();
    t.links[0].b_port = 1;
    t.links[1].b_port = 1;
    expect_refused(t, "links[1].b_port", "already used by links[0]");
  }
  SECTION("negative explicit port other than -1") {
    Topology t = two_hosts_one_switch();
    t.links[0].a_port = -2;
    expect_refused(t, "links[0].a_port", "-2");
  }
  SECTION("negative radix") {
    Topology t = two_hosts_one_switch();
    t.nodes[2].radix = -1;
    expect_refused(t, "nodes[2].radix", "got -1");
  }
  SECTION("no hosts") {
    Topology t;
    t.nodes = {switch_node("s0"), switch_node("s1")};
    t.links = {cable(0, 1)};
    expect_refused(t, "nodes", "no hosts");
  }
  SECTION("no nodes") {
    expect_refused(Topology{}, "nodes", "no nodes");
  }
}

TEST_CASE("topology: a single host with no links is a valid fabric", "[unit]") {
  Topology t;
  t.nodes = {host("alone")};
  const Fabric f = build_fabric(t);
  CHECK(f.host_node == std::vector<int>{0});
  CHECK(f.ports[0].empty());
}
