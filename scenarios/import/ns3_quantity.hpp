// ns-3 DataRate and Time strings ("100Gbps", "1000ns") in rdmasim's syntax, converted exactly.
#pragma once

#include <string>

namespace scen::peer {

// A link rate as rdmasim writes it: the peer's text when it is already "<number>Gbps" (or
// Mbps, Kbps, bps), else the exact value in the largest of those units that divides it
// ("100Gb/s" and "12.5GBps" become "100Gbps"). Accepts every unit ns-3's DataRate accepts.
// Throws InputError(path, word, ...) when the text is not a rate or not a whole number of bps.
std::string ns3_rate_text(const std::string& word, const std::string& path);

// A link delay as rdmasim writes it: the peer's text when it is "<number>ns" (or us, ms, s),
// else the exact value in ns, or in ps when it is not a whole number of nanoseconds. Accepts
// ns-3's units s, ms, us, ns, ps, fs, and a bare number (seconds, as in ns-3).
std::string ns3_delay_text(const std::string& word, const std::string& path);

}  // namespace scen::peer
