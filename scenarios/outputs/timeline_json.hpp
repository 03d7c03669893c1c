// A recorded timeline as Chrome trace-event JSON (the "JSON Object Format" of the Trace Event
// Format document; Perfetto's UI and chrome://tracing open it): one process per group of
// tracks, one thread per track lane, complete ("X") events in microseconds.
#pragma once

#include <string>

#include "models/timeline.hpp"

namespace scen {

// Overlapping spans of one track are spread over lanes (the first lane free at a span's start,
// spans taken in start order), shown as threads "name", "name #2", ...
std::string chrome_trace_json(const models::TimelineRecorder& timeline);

}  // namespace scen
