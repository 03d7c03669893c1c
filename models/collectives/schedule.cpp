#include "models/collectives/schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace models {

uint32_t ScheduleBuilder::add(uint32_t src, uint32_t dst, uint32_t channel, int64_t data_bytes) {
  CollectiveMessage m;
  m.src_rank = src;
  m.dst_rank = dst;
  m.channel = channel;
  m.data_bytes = data_bytes;
  m.wire_bytes = protocol_wire_bytes(protocol_, data_bytes);
  messages_.push_back(m);
  return static_cast<uint32_t>(messages_.size() - 1);
}

uint32_t ScheduleBuilder::join(uint32_t rank) {
  CollectiveMessage m;
  m.src_rank = m.dst_rank = rank;
  messages_.push_back(m);
  return static_cast<uint32_t>(messages_.size() - 1);
}

CollectiveSchedule ScheduleBuilder::finish() {
  CollectiveSchedule s;
  std::stable_sort(edges_.begin(), edges_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  s.successors.reserve(edges_.size());
  size_t e = 0;
  for (uint32_t i = 0; i < messages_.size(); ++i) {
    messages_[i].first_successor = static_cast<uint32_t>(s.successors.size());
    for (; e < edges_.size() && edges_[e].first == i; ++e) {
      s.successors.push_back(edges_[e].second);
      ++messages_[edges_[e].second].waiting;
    }
    messages_[i].successor_count =
        static_cast<uint32_t>(s.successors.size()) - messages_[i].first_successor;
  }
  s.messages = std::move(messages_);
  edges_.clear();
  return s;
}

std::vector<int64_t> split_bytes(int64_t bytes, int64_t parts, int64_t grain) {
  std::vector<int64_t> out(static_cast<size_t>(parts), 0);
  const int64_t elements = bytes / grain;
  for (int64_t i = 0; i < parts; ++i) {
    out[i] = (elements / parts + (i < elements % parts ? 1 : 0)) * grain;
  }
  out[parts - 1] += bytes - elements * grain;
  return out;
}

int64_t chunk_count(int64_t bytes, int64_t chunk_bytes) {
  if (chunk_bytes <= 0 || bytes <= chunk_bytes) return 1;
  return (bytes + chunk_bytes - 1) / chunk_bytes;
}

CollectiveSchedule build_schedule(const ScheduleRequest& r) {
  ScheduleBuilder b(r.protocol);
  switch (r.algorithm) {
    case CollectiveAlgorithm::Ring:
      ring_schedule(r, b);
      break;
    case CollectiveAlgorithm::HalvingDoubling:
      halving_doubling_schedule(r, b);
      break;
    case CollectiveAlgorithm::DoubleBinaryTree:
      double_binary_tree_schedule(r, b);
      break;
    case CollectiveAlgorithm::Direct:
      direct_schedule(r, b);
      break;
    case CollectiveAlgorithm::Hierarchical:
      hierarchical_schedule(r, b);
      break;
    case CollectiveAlgorithm::Auto:
      throw std::invalid_argument("algorithm not resolved");
    case CollectiveAlgorithm::Sharp:
    case CollectiveAlgorithm::Nvls:
    case CollectiveAlgorithm::NvlsTree:
    case CollectiveAlgorithm::CollNetDirect:
    case CollectiveAlgorithm::CollNetChain:
      throw std::invalid_argument("sharp, nvls and collnet run in the switches, not as a schedule");
  }
  return b.finish();
}

}  // namespace models
