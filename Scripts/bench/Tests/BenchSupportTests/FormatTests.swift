import BenchSupport
import Testing

@Test(arguments: [
    (12345.4, "12,345"),
    (1_234_567, "1,234,567"),
    (1000, "1,000"),
    (999.6, "1,000"),
    (123.4, "123"),
    (12.34, "12.3"),
    (1.234, "1.23"),
    (Double.nan, "–"),
])
func quantities(value: Double, expected: String) {
    #expect(Format.quantity(value) == expected)
}

@Test func factorsAndMegabytes() {
    #expect(Format.factor(0.8712) == "0.87×")
    #expect(Format.megabytes(kib: 10240) == "10.5")
}
