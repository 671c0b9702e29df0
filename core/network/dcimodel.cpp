#include "network/dcimodel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace archipelago::core {

double mathisThroughputGBps(double mssBytes, double rttS, double lossRate)
{
    if (lossRate <= 0.0 || rttS <= 0.0)
        return std::numeric_limits<double>::infinity();
    // Mathis et al. 1997, eq. (3): BW = (MSS / RTT) * C / sqrt(p), C = sqrt(3/2).
    const double c = std::sqrt(1.5);
    return mssBytes / rttS * c / std::sqrt(lossRate) / 1e9;
}

double windowThroughputGBps(double windowBytes, double rttS)
{
    if (rttS <= 0.0)
        return std::numeric_limits<double>::infinity();
    // One window per round trip (bandwidth-delay product bound).
    return std::max(0.0, windowBytes) / rttS / 1e9;
}

double transportFlowLimitGBps(const DciLink& link, double rttS)
{
    if (link.transport == DciTransport::RdmaOtn)
        return std::numeric_limits<double>::infinity();
    const double perConnection =
        std::min(windowThroughputGBps(link.windowBytes, rttS),
                 mathisThroughputGBps(kDefaultMssBytes, rttS, link.packetLossRate));
    return std::max(1, link.connectionsPerCollective) * perConnection;
}

} // namespace archipelago::core
