// What an evaluation puts on the DCI, for the tests of traffic across buildings.
#pragma once

#include "model/evaluation.h"

namespace archipelago::tests {

// Bytes over the DCI links (both directions) per iteration.
inline double dciBytesPerIteration(const core::Evaluation& ev)
{
    double bytes = 0.0;
    for (const core::LinkTraffic& t : ev.traffic)
        if (t.linkClass == core::LinkClass::Dci)
            bytes += t.bytesPerIteration;
    return bytes;
}

} // namespace archipelago::tests
