// Datacenter interconnect transport: what a transport (lossless RDMA over OTN vs lossy IP) lets
// one flow push through a DCI link (model/dcilink.h gives its latency and capacity). Pure
// functions; the placement module turns them into DCI levels.
#pragma once

#include "model/dcilink.h"
#include "model/scenario.h"

namespace archipelago::core {

// TCP maximum segment size on a 1500-byte Ethernet MTU (RFC 879: MTU - 40 bytes of headers).
inline constexpr double kDefaultMssBytes = 1460.0;

// Mathis, Semke, Mahdavi, Ott 1997, "The macroscopic behavior of the TCP congestion avoidance
// algorithm", eq. (3): BW = MSS/RTT * C/sqrt(p), C = sqrt(3/2) for periodic loss with delayed
// ACKs off. Returns GB/s; infinite for p <= 0.
double mathisThroughputGBps(double mssBytes, double rttS, double lossRate);
// Window limit: at most one window in flight per round trip (W / RTT), GB/s.
double windowThroughputGBps(double windowBytes, double rttS);

// Throughput one GPU-level flow can reach over `link` given a round-trip time `rttS` (the
// whole route's), before sharing capacity with other flows:
//   RdmaOtn: unbounded by the transport (lossless OTN, no go-back-N retransmissions; RoCE's
//            go-back-N recovery needs the lossless fabric: Guo et al., SIGCOMM 2016, section 3);
//   LossyIp: connectionsPerCollective x min(window/RTT, Mathis).
// Returns GB/s (infinity when the transport does not bound it).
double transportFlowLimitGBps(const DciLink& link, double rttS);

} // namespace archipelago::core
