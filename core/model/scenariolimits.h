// Valid ranges of scenario fields, shared by the reader (its "expected ..." wording) and the
// semantic checks (the ranges themselves), so that both say the same thing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace archipelago::core {

// Upper bounds that keep any file from exhausting memory or time.
inline constexpr std::int64_t kMaxGpus = 100'000'000;
inline constexpr int kMaxObjects = 100'000; // datacenters, pods, links, shards, ...
inline constexpr std::size_t kMaxFileBytes = 64u * 1024u * 1024u;
// A name (of a datacenter, pod, region, link, catalog entry, pin, the scenario) is a label the
// window, the tables and the report draw on one line; any text (a description, a source) is a
// paragraph. Beyond these, a report laid out 1 MB names for over 900 s. The window lets a name
// be typed to kMaxNameChars UTF-16 units, which UTF-8 holds in at most kMaxNameBytes.
inline constexpr std::size_t kMaxNameBytes = 1024;
inline constexpr std::size_t kMaxTextBytes = 16 * 1024;
inline constexpr int kMaxNameChars = 256;
// Pins are evaluated when a file opens and compared side by side: 2,000 took 19.5 s to open and
// 1.1 GB on the Explore tab. A comparison of more than this many designs is a sweep's job.
inline constexpr std::size_t kMaxPins = 100;

} // namespace archipelago::core

namespace archipelago::core::limits {

struct IntLimit
{
    int min;
    int max;
    std::string_view expected;
    bool contains(long long v) const { return v >= min && v <= max; }
};

struct NumberLimit
{
    double min;
    double max;
    bool minExclusive;
    std::string_view expected;
    bool contains(double v) const
    {
        // Written so that NaN is outside every range.
        return (minExclusive ? v > min : v >= min) && v <= max;
    }
};

inline constexpr int kIntMax = std::numeric_limits<int>::max();
inline constexpr double kHuge = std::numeric_limits<double>::max();

inline constexpr IntLimit kPositive{1, kIntMax, "a positive integer"};
inline constexpr IntLimit kNonNegative{0, kIntMax, "a non-negative integer"};
// Multi-token prediction depth (DeepSeek-V3 trains with 1).
inline constexpr IntLimit kMtpDepth{0, 16, "an integer in [0, 16]"};
inline constexpr IntLimit kId{0, kIntMax, "a non-negative integer id"};
inline constexpr IntLimit kTiers{2, 3, "2 or 3"};
inline constexpr IntLimit kNicsPerGpu{1, 16, "an integer in 1..16"};
// Beyond the C+L band at 25 GHz spacing; a bound against nonsense, not a physical limit.
inline constexpr IntLimit kWavelengths{1, 4096, "an integer in 1..4096"};
// NCCL's limits (NVIDIA/nccl 5067397): MAXCHANNELS 64 (src/include/device.h), NCCL_IB_MAX_QPS
// 128 (src/transport/net_ib/common.h; the environment variables page: "between 1 and 128").
inline constexpr IntLimit kNcclChannels{1, 64, "an integer in 1..64"};
inline constexpr IntLimit kQpsPerConnection{1, 128, "an integer in 1..128"};
// The pipeline simulation runs pp*v stages x m micro-batches: bound both so that no file makes
// an evaluation run for hours.
inline constexpr IntLimit kLayers{1, 10'000, "an integer in 1..10000"};
inline constexpr IntLimit kGlobalBatch{1, 10'000'000, "an integer in 1..10000000"};
inline constexpr IntLimit kZeroStage{0, 3, "an integer in 0..3"};
inline constexpr IntLimit kExtraInFlight{0, 1024, "an integer in 0..1024"};
// DiLoCo's inner steps: the papers run 1..2000 (Douillard et al. 2023, figure 4); a bound
// against typos, well past any published H.
inline constexpr IntLimit kInnerSteps{1, 100'000, "an integer in 1..100000"};
inline constexpr IntLimit kOuterGradientBits{4, 32, "4, 8, 16 or 32"};
inline constexpr IntLimit kFragments{0, 10'000, "an integer in 0..10000 (0: one per three layers)"};
inline constexpr IntLimit kOverlapSteps{0, 100'000, "an integer in 0..100000"};

inline constexpr NumberLimit kAnyNumber{-kHuge, kHuge, false, "a number"};
inline constexpr NumberLimit kPositiveNumber{0.0, kHuge, true, "a positive number"};
inline constexpr NumberLimit kNonNegativeNumber{0.0, kHuge, false, "a non-negative number"};
// Half the Earth's circumference: no fibre path between two sites is longer.
inline constexpr NumberLimit kDistanceKm{0.0, 20'000.0, false, "a number in [0, 20000]"};
inline constexpr NumberLimit kOversubscription{1.0, 1'000.0, false, "a number in [1, 1000]"};
inline constexpr NumberLimit kProbability{0.0, 1.0, false, "a number in [0, 1]"};
inline constexpr NumberLimit kLatencyS{0.0, 1.0, false, "a number of seconds in [0, 1]"};
// No accelerator has less than a GiB of HBM; a bound against typos such as 1e-300.
inline constexpr NumberLimit kHbmGib{1.0, 100'000.0, false, "a number of GiB in [1, 100000]"};
inline constexpr NumberLimit kFraction{0.0, 1.0, true, "a number in (0, 1]"};
// DCI transport (docs/network.md, "Transport across buildings"). TCP segment: RFC 879's 536
// (576-byte minimum datagram) to the 65,495 of the largest IPv4 datagram less 40 header bytes.
inline constexpr NumberLimit kMssBytes{536.0, 65'495.0, false, "a number of bytes in [536, 65495]"};
// NCCL's buffer and send/recv chunk: one 4 KiB packet at least; NCCL keeps both in an int
// (src/include/comm.h buffSizes, p2pChunkSize), so 2^31 - 1 bytes at most.
inline constexpr NumberLimit kNcclBufferBytes{4096.0, 2147483647.0, false,
                                              "a number of bytes in [4096, 2147483647]"};
// PFC headroom per port: 1 TB is 100x the several GB of headroom Azure's deep-buffer chassis
// hold (NSDI'23 7.1).
inline constexpr NumberLimit kHeadroomBytes{0.0, 1e12, true, "a number of bytes in (0, 1e12]"};

// Hardware figures of the catalog. Each bound rejects what no real part can be (a typo, a unit
// slip, 1e-300) while leaving an order of magnitude or more of room above today's parts, so that
// the model never sizes a fabric or prices a link from a physically meaningless number.
//
// A two-tier leaf-spine needs at least one port down and one up on a leaf and ports to two
// leaves on a spine; four ports is the least that builds one. Ports come in pairs on every
// switch ASIC, and the down/up split assumes it. 4096 is 8x the largest ASIC shipped (512 x 200G,
// Broadcom Tomahawk 6, 2025).
inline constexpr IntLimit kRadix{4, 4096, "an even number of ports in 4..4096"};
// One lane of the slowest Ethernet still built is 1 Gb/s; 10 Tb/s is 6x the fastest port on any
// roadmap (1.6T, IEEE 802.3dj).
inline constexpr NumberLimit kPortGbps{1.0, 10'000.0, false, "a number of Gb/s in [1, 10000]"};
// One coherent carrier: below 1 Gb/s no DWDM transponder exists; 10 Tb/s is 6x the fastest
// single-wavelength optic announced (1.6T ZR, OIF 2024).
inline constexpr NumberLimit kGbpsPerWavelength{1.0, 10'000.0, false,
                                                "a number of Gb/s in [1, 10000]"};
// Per direction per GPU: PCIe 3 x16 (16 GB/s) is the slowest link that joins GPUs; NVLink 5 is
// 900 GB/s. 1 GB/s below, 100x above.
inline constexpr NumberLimit kScaleUpGBps{1.0, 100'000.0, false, "a number of GB/s in [1, 100000]"};
// HBM bandwidth: a DDR4 channel (25 GB/s) is the least any accelerator has; B200 has 8 TB/s.
inline constexpr NumberLimit kHbmGBps{1.0, 1'000'000.0, false, "a number of GB/s in [1, 1000000]"};
// Dense TFLOP/s: a V100 does 125; B200 2,250. 1e-3 (one GFLOP/s) below, 1e6 above.
inline constexpr NumberLimit kPeakTflops{1e-3, 1'000'000.0, false,
                                         "a number of TFLOP/s in [0.001, 1000000]"};
// FP8 is optional: 0 means "not supported".
inline constexpr NumberLimit kPeakTflopsOptional{0.0, 1'000'000.0, false,
                                                 "a number of TFLOP/s in [0, 1000000]"};
// No single catalog part costs a billion dollars or draws a megawatt (a whole 100,000-GPU
// cluster's network is ~1e9 USD): the bounds keep a typo from swamping a total or making it
// infinite, and 0 stays allowed for "not priced".
inline constexpr NumberLimit kPriceUsd{0.0, 1e9, false, "a number of USD in [0, 1e9]"};
inline constexpr NumberLimit kWatts{0.0, 1e6, false, "a number of watts in [0, 1e6]"};
// EDFA spans are 50-120 km; an amplifier closer than 1 km to the last is not a line system.
// 1,000 km is beyond any unrepeatered submarine span (~500 km).
inline constexpr NumberLimit kAmplifierSpacingKm{1.0, 1'000.0, false,
                                                 "a number of km in [1, 1000]"};
// Reliability (model/reliability.h). Failures observed: a count over GPU-days or host-days,
// up to a million GPUs for 3,000 years. Storage and host-copy bandwidth: a single disk's
// 0.1 GB/s to 100x Tectonic's 7 TB/s peak. A checkpoint holds at most a few dozen bytes per
// parameter (fp32 weights, gradients and two Adam moments are 16). A restart of up to 11 days.
inline constexpr NumberLimit kFailureEvents{0.0, 1e9, false, "a number in [0, 1e9]"};
inline constexpr NumberLimit kUnitDays{0.0, 1e12, true, "a positive number up to 1e12"};
inline constexpr NumberLimit kStorageGBps{0.1, 1e6, false, "a number of GB/s in [0.1, 1e6]"};
// A datacenter's own storage: 0 takes the catalog's.
inline constexpr NumberLimit kDatacenterStorageGBps{
    0.0, 1e6, false, "a number of GB/s in [0, 1e6] (0: the catalog's)"};
inline constexpr NumberLimit kBytesPerParam{0.0, 1'000.0, true, "a number in (0, 1000]"};
inline constexpr NumberLimit kRestartS{0.0, 1e6, false, "a number of seconds in [0, 1e6]"};
// A repair before the job restarts, or a degraded tier: up to a year.
inline constexpr NumberLimit kRepairH{0.0, 8'760.0, false, "a number of hours in [0, 8760]"};
inline constexpr IntLimit kGpusPerHost{1, 1'024, "an integer in 1..1024"};
// Economics (model/economics.h). Hardware lasts a quarter to 30 years; a server costs up to
// 1e9 USD per GPU (kPriceUsd); at full load it draws 1 to 10x its GPUs' TDP; a PUE of 1 (no
// overhead) to 5; energy up to 10 USD/kWh (30x Hawaii's 2023 industrial rate); colocation up to
// 10,000 USD per kW-month (50x 2024's wholesale rate); a rented GPU up to 1,000 USD an hour.
inline constexpr NumberLimit kServiceLifeYears{0.25, 30.0, false,
                                               "a number of years in [0.25, 30]"};
inline constexpr NumberLimit kServerPowerRatio{1.0, 10.0, false, "a number in [1, 10]"};
inline constexpr NumberLimit kFacilityUsdPerKwMonth{0.0, 10'000.0, false,
                                                    "a number of USD per kW-month in [0, 10000]"};
inline constexpr NumberLimit kPue{1.0, 5.0, false, "a number in [1, 5]"};
inline constexpr NumberLimit kElectricityUsdPerKwh{0.0, 10.0, false,
                                                   "a number of USD per kWh in [0, 10]"};
inline constexpr NumberLimit kRentalUsdPerGpuHour{0.0, 1'000.0, false,
                                                  "a number of USD per GPU-hour in [0, 1000]"};
// A datacenter's own site figures: 0 takes the catalog's (a PUE in (0, 1) is refused apart).
inline constexpr NumberLimit kDatacenterElectricityUsdPerKwh{
    0.0, 10.0, false, "a number of USD per kWh in [0, 10] (0: the catalog's)"};
inline constexpr NumberLimit kDatacenterPue{0.0, 5.0, false,
                                            "a number in [1, 5], or 0 for the catalog's"};
inline constexpr NumberLimit kDatacenterFacilityUsdPerKwMonth{
    0.0, 10'000.0, false, "a number of USD per kW-month in [0, 10000] (0: the catalog's)"};
// An optic's reach: 0 (unknown) to half the Earth's circumference, in metres.
inline constexpr NumberLimit kReachM{0.0, 20'000'000.0, false, "a number of metres in [0, 2e7]"};

} // namespace archipelago::core::limits
