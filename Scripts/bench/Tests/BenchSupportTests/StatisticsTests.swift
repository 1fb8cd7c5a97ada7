import BenchSupport
import Testing

private let medians: [([Double], Double)] = [
    ([3], 3),
    ([5, 1, 3], 3),
    ([4, 1, 3, 2], 2.5),
    ([7, 7, 1, 100, 7], 7),
]

@Test(arguments: medians)
func medianOf(values: [Double], expected: Double) {
    #expect(Statistics.median(values) == expected)
}

@Test func medianOfNothingIsNil() {
    #expect(Statistics.median([]) == nil)
}
