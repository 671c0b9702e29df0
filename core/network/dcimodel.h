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

// NCCL_STEPS (NVIDIA/nccl src/include/device.h): a connection's buffer is cut into 8 slots, and a
// sender has at most those 8 steps in flight before the receiver frees one (src/transport/net.cc:
// stepSize = buffSize / NCCL_STEPS).
inline constexpr int kNcclSteps = 8;

// What the GPU flows crossing a link run: a collective (ring edges; Simple protocol buffer) or
// point-to-point send/recv (pipeline activations, expert all-to-all; p2p chunks).
enum class NcclTraffic
{
    Collective,
    PointToPoint
};

// NCCL's connections on one direction of a link and the bytes each may have in flight.
struct DciConnections
{
    double connections = 1.0;        // one per channel per GPU flow
    double bytesInFlight = 0.0;      // per connection: its NCCL buffer
    double streamsPerConnection = 1; // QPs (IB/RoCE) or sockets (TCP) a connection stripes over
};

// Bytes one NCCL connection keeps in flight: its buffer, NCCL_BUFFSIZE for a collective (Simple
// protocol, src/transport/net.cc), NCCL_STEPS x NCCL_P2P_NET_CHUNKSIZE for send/recv (the p2p
// step is the chunk, src/device/sendrecv.h; the chunk is capped at NCCL_BUFFSIZE / NCCL_STEPS,
// src/init.cc computeBuffSizes). Queue pairs share it: a request goes to one QP round-robin or is
// split across all (src/transport/net_ib/p2p.cc), so more QPs add no bytes in flight.
double ncclBytesInFlight(const NcclSettings& nccl, NcclTraffic traffic);
// Connections crossing one direction of `link` when `gpuFlows` GPU flows of `traffic` cross it
// at once: every flow is at least one, and NCCL opens one connection per channel (the
// collective's channels, or NCCL_NCHANNELS_PER_NET_PEER for send/recv).
DciConnections dciConnections(const DciLink& link, double gpuFlows, NcclTraffic traffic);

// What the transport lets the whole link carry per direction, in GB/s, over a route of
// round-trip `rttS` (infinite when nothing bounds it). With n connections of W bytes in flight:
//   RdmaOtn: n x W / RTT (lossless: no loss term);
//   RocePfc: min(n x W / RTT, capacity x min(1, headroom / xoff)) x go-back-N efficiency;
//   LossyIp: n x min(W / RTT, streams x min(window / RTT, Padhye)): NCCL's socket transport
//            stripes a connection over its sockets, each a TCP stream with its own window.
// It is not capped by the wavelengths' capacity: dciUsableCapacityGBps is.
double dciTransportLimitGBps(const DciLink& link, double rttS, const DciConnections& c);
// What the wavelengths carry for `c`: each transport stream (QP or socket) is one 5-tuple that
// the DCI routers hash onto one of the link's ports, one per wavelength, so the streams fill the
// ports they land on (ecmpEfficiency, network/collectives.h): capacity when streams >> ports.
double dciHashedCapacityGBps(const DciLink& link, const DciConnections& c);
// Usable capacity per direction: min(hashed wavelength capacity, transport limit), shared by
// every flow crossing the link.
double dciUsableCapacityGBps(const DciLink& link, double rttS, const DciConnections& c);

} // namespace archipelago::core
