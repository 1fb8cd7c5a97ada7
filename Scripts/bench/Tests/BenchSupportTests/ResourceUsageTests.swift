import BenchSupport
import Glibc
import Testing

@Test func readsThisProcess() {
    let before = ResourceUsage.current()
    var sink: UInt64 = 0
    for value in 0..<5_000_000 { sink = sink &* 31 &+ UInt64(value) }
    #expect(sink != 1)
    let after = ResourceUsage.current()
    #expect(before.peakRSSKiB > 0)
    #expect(after.peakRSSKiB >= before.peakRSSKiB)
    #expect(after.cpuSeconds >= before.cpuSeconds)
}

@Test func convertsAKernelReading() {
    var usage = rusage()
    usage.ru_utime = timeval(tv_sec: 1, tv_usec: 250_000)
    usage.ru_stime = timeval(tv_sec: 0, tv_usec: 500_000)
    usage.ru_maxrss = 4096
    #expect(ResourceUsage(usage) == ResourceUsage(cpuSeconds: 1.75, peakRSSKiB: 4096))
}
