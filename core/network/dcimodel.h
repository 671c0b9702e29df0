// Datacenter interconnect transport: what a transport (RDMA over OTN, RoCE with PFC, TCP over a
// lossy routed network) lets the whole of a DCI link carry per direction (model/dcilink.h gives
// its latency and capacity). Pure functions; the placement module turns them into DCI levels.
// Figures and sources: docs/network.md, "Transport across buildings".
#pragma once

#include "model/dcilink.h"
#include "model/scenario.h"

namespace archipelago::core {

// Linux TCP_RTO_MIN (include/net/tcp.h, HZ/5): the retransmission timeout is the smoothed RTT
// plus at least 200 ms (net/ipv4/tcp_input.c, tcp_rtt_estimator / __tcp_set_rto).
inline constexpr double kTcpMinRtoS = 0.2;
// Port MTU in the PFC headroom rule: 9216-byte jumbo frames, as RoCE fabrics configure them.
inline constexpr double kPfcPortMtuBytes = 9216.0;
// RoCE packet payload: the largest InfiniBand path MTU (4096 B), what RoCE NICs use.
inline constexpr double kRocePacketBytes = 4096.0;

// Mathis, Semke, Mahdavi, Ott 1997, "The macroscopic behavior of the TCP congestion avoidance
// algorithm", eq. (3): BW = MSS/RTT * C/sqrt(p), C = sqrt(3/2) for periodic loss with delayed
// ACKs off. Returns GB/s; infinite for p <= 0.
double mathisThroughputGBps(double mssBytes, double rttS, double lossRate);
// Padhye, Firoiu, Towsley, Kurose 1998, "Modeling TCP throughput: a simple model and its
// empirical validation", eq. (30) without the window term (b = 1 packet per ACK):
//   B = MSS / (RTT sqrt(2p/3) + T0 min(1, 3 sqrt(3p/8)) p (1 + 32 p^2)),
// times (1 - p) for the packets that arrive. It is Mathis (C = sqrt(3/2)) when timeouts are
// rare and falls to 0 at p = 1. GB/s per connection; infinite for p <= 0.
double padhyeThroughputGBps(double mssBytes, double rttS, double lossRate, double rtoS);
// Window limit: at most one window in flight per round trip (W / RTT), GB/s.
double windowThroughputGBps(double windowBytes, double rttS);
// Go-back-N efficiency with `packetsPerRtt` packets in flight: every loss resends the window,
// U = (1 - p) / (1 + (N - 1) p) (Stallings, "Data and Computer Communications", ARQ
// performance). RoCE NICs recover by go-back-N (Guo et al., SIGCOMM 2016; Azure NSDI'23 2.4).
double goBackNEfficiency(double lossRate, double packetsPerRtt);
// PFC headroom one port and priority needs to stay lossless over `lengthM` of cable (Linux
// drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c, calculate_xoff):
//   xoff = (301 + 2.16 len[m]) * speed[Gb/s] + 2.72 MTU   bytes, speed at least 40 Gb/s.
double pfcXoffBytes(double lengthM, double portGbps, double mtuBytes);

// Transport connections crossing one direction of `link` when `gpuFlows` GPU-level flows cross
// it at once: a QP or socket joins one pair of endpoints, so each flow is at least one; a
// collective spreads over `connectionsPerCollective` when it has fewer flows than that.
double dciConnections(const DciLink& link, double gpuFlows);

// What the transport lets the whole link carry per direction, in GB/s, over a route of
// round-trip `rttS` with `connections` connections (infinite when nothing bounds it):
//   RdmaOtn: connections x outstanding bytes / RTT (lossless: no loss term);
//   RocePfc: min(connections x outstanding / RTT, capacity x min(1, headroom / xoff))
//            x go-back-N efficiency at the link's loss;
//   LossyIp: connections x min(window / RTT, Padhye).
// It is not capped by the wavelengths' capacity: dciUsableCapacityGBps is.
double dciTransportLimitGBps(const DciLink& link, double rttS, double connections);
// Usable capacity per direction: min(wavelength capacity, transport limit), shared by every
// flow crossing the link.
double dciUsableCapacityGBps(const DciLink& link, double rttS, double connections);

} // namespace archipelago::core
