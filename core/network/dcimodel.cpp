#include "network/dcimodel.h"

#include "network/collectives.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace archipelago::core {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

double mathisThroughputGBps(double mssBytes, double rttS, double lossRate)
{
    if (lossRate <= 0.0 || rttS <= 0.0)
        return kInf;
    // Mathis et al. 1997, eq. (3): BW = (MSS / RTT) * C / sqrt(p), C = sqrt(3/2).
    const double c = std::sqrt(1.5);
    return mssBytes / rttS * c / std::sqrt(lossRate) / 1e9;
}

double padhyeThroughputGBps(double mssBytes, double rttS, double lossRate, double rtoS)
{
    if (lossRate <= 0.0)
        return kInf;
    const double p = std::min(1.0, lossRate);
    // Padhye et al. 1998, eq. (30), b = 1: fast retransmit plus timeouts of T0.
    const double denominator = std::max(0.0, rttS) * std::sqrt(2.0 * p / 3.0) +
                               std::max(0.0, rtoS) * std::min(1.0, 3.0 * std::sqrt(3.0 * p / 8.0)) *
                                   p * (1.0 + 32.0 * p * p);
    if (denominator <= 0.0)
        return kInf;
    // B counts packets sent; (1 - p) of them arrive.
    return std::max(0.0, mssBytes) / denominator * (1.0 - p) / 1e9;
}

double windowThroughputGBps(double windowBytes, double rttS)
{
    if (rttS <= 0.0)
        return kInf;
    // One window per round trip (bandwidth-delay product bound).
    return std::max(0.0, windowBytes) / rttS / 1e9;
}

double goBackNEfficiency(double lossRate, double packetsPerRtt)
{
    const double p = std::clamp(lossRate, 0.0, 1.0);
    const double n = std::max(1.0, packetsPerRtt);
    // Go-back-N: each loss costs the N packets in flight, U = (1 - p) / (1 + (N - 1) p).
    return (1.0 - p) / (1.0 + (n - 1.0) * p);
}

double pfcXoffBytes(double lengthM, double portGbps, double mtuBytes)
{
    // mlx5 calculate_xoff: (301 + 2.16 * len_m) * speed_Gbps + 2.72 * MTU, speed >= 40G.
    const double speedGbps = std::max(40.0, portGbps);
    return (301.0 + 2.16 * std::max(0.0, lengthM)) * speedGbps + 2.72 * std::max(0.0, mtuBytes);
}

double ncclBytesInFlight(const NcclSettings& nccl, NcclTraffic traffic)
{
    const double buffer = std::max(0.0, nccl.buffsizeBytes);
    if (traffic == NcclTraffic::Collective)
        return buffer; // NCCL_STEPS slots of NCCL_BUFFSIZE / NCCL_STEPS
    // Send/recv: NCCL_STEPS steps of one p2p chunk, the chunk at most NCCL_BUFFSIZE / NCCL_STEPS.
    return kNcclSteps * std::min(std::max(0.0, nccl.p2pChunkBytes), buffer / kNcclSteps);
}

DciConnections dciConnections(const DciLink& link, double gpuFlows, NcclTraffic traffic)
{
    const int channels =
        traffic == NcclTraffic::Collective ? link.nccl.channels : link.nccl.p2pChannelsPerPeer;
    DciConnections c;
    c.connections = std::max(1.0, gpuFlows) * std::max(1, channels);
    c.bytesInFlight = ncclBytesInFlight(link.nccl, traffic);
    c.streamsPerConnection = std::max(1, link.nccl.qpsPerConnection);
    return c;
}

double dciTransportLimitGBps(const DciLink& link, double rttS, const DciConnections& c)
{
    const double n = std::max(1.0, c.connections);
    const double window = n * windowThroughputGBps(c.bytesInFlight, rttS);
    switch (link.transport) {
    case DciTransport::RdmaOtn:
        // Lossless OTN (DC-OTN / GeoPipe): only the bytes NCCL keeps in flight bound it.
        return window;
    case DciTransport::RocePfc: {
        // One port per wavelength: a port whose headroom covers only a fraction of the xoff need
        // must pause before that much is in flight, so it carries line rate x headroom / xoff
        // (~ headroom / RTT, the credit starvation of long InfiniBand links).
        const double xoff =
            pfcXoffBytes(link.distanceKm * 1000.0, link.gbpsPerWavelength, kPfcPortMtuBytes);
        const double headroom =
            dciCapacityGBps(link) * std::min(1.0, std::max(0.0, link.headroomBytes) / xoff);
        const double lossless = std::min(window, headroom);
        if (link.packetLossRate <= 0.0)
            return lossless;
        // A loss makes the QP resend what it has in flight (go-back-N); a connection's bytes
        // in flight are spread over its QPs.
        const double perQp = std::max(1.0, c.streamsPerConnection);
        const double inFlightBytes =
            std::min(c.bytesInFlight, lossless * 1e9 / n * std::max(0.0, rttS)) / perQp;
        return lossless * goBackNEfficiency(link.packetLossRate, inFlightBytes / kRocePacketBytes);
    }
    case DciTransport::LossyIp: {
        const double perStream =
            std::min(windowThroughputGBps(link.windowBytes, rttS),
                     padhyeThroughputGBps(link.mssBytes, rttS, link.packetLossRate,
                                          std::max(0.0, rttS) + kTcpMinRtoS));
        const double perConnection = std::min(windowThroughputGBps(c.bytesInFlight, rttS),
                                              std::max(1.0, c.streamsPerConnection) * perStream);
        return n * perConnection;
    }
    }
    return kInf;
}

double dciHashedCapacityGBps(const DciLink& link, const DciConnections& c)
{
    const double ports = std::max(1.0, static_cast<double>(link.wavelengths));
    const double streams = std::max(1.0, c.connections) * std::max(1.0, c.streamsPerConnection);
    const double portGBps = dciCapacityGBps(link) / ports;
    // Expected ports hit x port rate (balls into bins, as the fabric's uplinks).
    return ecmpEfficiency(streams, ports) * std::min(streams, ports) * portGBps;
}

double dciUsableCapacityGBps(const DciLink& link, double rttS, const DciConnections& c)
{
    return std::min(dciHashedCapacityGBps(link, c), dciTransportLimitGBps(link, rttS, c));
}

} // namespace archipelago::core
