// Chakra execution-trace files (written by scenarios/chakra/chakra_generate.hpp): one
// GlobalMetadata then the nodes, each message preceded by its length as a varint (Chakra's protolib
// encodeMessage / decodeMessage). Reading refuses what is not such a file with the file's name and
// the byte where it stopped making sense.
#pragma once

#include <string>
#include <vector>

#include "chakra/et_def.pb.h"

namespace scen {

struct EtFile {
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;
};

// Throws InputError(file, what, "a Chakra execution trace ...") on anything else.
EtFile read_et_file(const std::string& file);
// The same from the file's bytes (`file` names it in errors).
EtFile parse_et_bytes(const std::string& bytes, const std::string& file);

}  // namespace scen
