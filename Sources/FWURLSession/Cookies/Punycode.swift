// Punycode.swift
//
// The Punycode encoder of RFC 3492 and the IDNA "xn--" form of a domain label, so that the public suffix
// list's Unicode rules compare with the ASCII host names `URL` gives (URL("http://bücher.de").host is
// "xn--bcher-kva.de"). Encoding only: nothing needs to decode. A pure function.

// MARK: - Punycode

/// RFC 3492's Punycode encoding.
enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 128

    /// `label` as IDNA writes it: unchanged when it is ASCII, else "xn--" and its Punycode encoding.
    static func asciiLabel(_ label: String) -> String {
        label.unicodeScalars.allSatisfy(\.isASCII) ? label : "xn--" + encode(label)
    }

    /// `domain` with each non-ASCII label in its "xn--" form.
    static func asciiDomain(_ domain: String) -> String {
        domain.split(separator: ".", omittingEmptySubsequences: false).map { asciiLabel(String($0)) }
            .joined(separator: ".")
    }

    /// The Punycode encoding of `text` (without the "xn--" prefix).
    static func encode(_ text: String) -> String {
        let input = text.unicodeScalars.map { Int($0.value) }
        var output = input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < input.count {
            let next = input.filter { $0 >= n }.min() ?? n
            delta += (next - n) * (handled + 1)
            n = next
            for scalar in input {
                if scalar < n { delta += 1 }
                guard scalar == n else { continue }
                output.append(contentsOf: digits(for: delta, bias: bias))
                bias = adapt(delta: delta, points: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    /// The variable-length digits of `value` under `bias`.
    private static func digits(for value: Int, bias: Int) -> [Character] {
        var result: [Character] = []
        var rest = value
        var k = base
        while true {
            let threshold = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
            if rest < threshold { break }
            result.append(digit(threshold + (rest - threshold) % (base - threshold)))
            rest = (rest - threshold) / (base - threshold)
            k += base
        }
        result.append(digit(rest))
        return result
    }

    /// The bias adaptation function of RFC 3492 §6.1.
    private static func adapt(delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// The basic code point for digit `value` (0-25: a-z, 26-35: 0-9).
    private static func digit(_ value: Int) -> Character {
        Character(Unicode.Scalar(UInt8(value < 26 ? 0x61 + value : 0x30 + value - 26)))
    }
}
