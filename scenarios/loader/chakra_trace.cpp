#include "scenarios/loader/chakra_trace.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <fstream>

#include "scenarios/loader/input_error.hpp"

namespace scen {
namespace {

constexpr int64_t kMaxTraceBytes = int64_t{1} << 30;  // 1 GiB per rank's file

const char* kExpected =
    "a Chakra execution trace (length-delimited protobuf: a GlobalMetadata with its version, "
    "then Node messages)";

}  // namespace

EtFile read_et_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file, "", "a readable file (it does not exist or cannot be read)");
  std::string bytes;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    bytes.append(buf, static_cast<size_t>(in.gcount()));
    if (static_cast<int64_t>(bytes.size()) > kMaxTraceBytes) {
      throw InputError(file, "", "a trace file of at most 1 GiB");
    }
  }
  return parse_et_bytes(bytes, file);
}

EtFile parse_et_bytes(const std::string& bytes, const std::string& file) {
  google::protobuf::io::ArrayInputStream array(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream in_stream(&array);
  EtFile et;
  bool first = true;
  while (in_stream.CurrentPosition() < static_cast<int>(bytes.size())) {
    const int at = in_stream.CurrentPosition();
    uint32_t length = 0;
    if (!in_stream.ReadVarint32(&length) ||
        static_cast<int64_t>(length) > static_cast<int64_t>(bytes.size()) - at) {
      throw InputError(
          file, "a message length that runs past the end at byte " + std::to_string(at), kExpected);
    }
    const auto limit = in_stream.PushLimit(static_cast<int>(length));
    bool ok = false;
    if (first) {
      ok = et.metadata.ParseFromCodedStream(&in_stream) && in_stream.ConsumedEntireMessage() &&
           !et.metadata.version().empty();
    } else {
      ChakraProtoMsg::Node node;
      ok = node.ParseFromCodedStream(&in_stream) && in_stream.ConsumedEntireMessage() &&
           ChakraProtoMsg::NodeType_IsValid(node.type());
      if (ok) et.nodes.push_back(std::move(node));
    }
    in_stream.PopLimit(limit);
    if (!ok) {
      throw InputError(file,
                       std::string(first ? "no GlobalMetadata with a version" : "no Node") +
                           " in the message at byte " + std::to_string(at),
                       kExpected);
    }
    first = false;
  }
  if (first) throw InputError(file, "an empty file", kExpected);
  return et;
}

}  // namespace scen
