import Testing
import VoiceNoteCore
@testable import VoiceNoteJSON

private let small = JSONLimits(maximumBytes: 1 << 20)

private func roundTrip(_ text: String) throws -> String {
    try JSONValue(parsing: text, limits: small, what: "test").text()
}

private func status(_ text: String, limits: JSONLimits = small) -> Status? {
    do {
        _ = try JSONValue(parsing: text, limits: limits, what: "test")
        return nil
    } catch { return error.status }
}

@Suite struct JSONTests {
    @Test func aDocumentComesBackAsItWent() throws {
        let text = #"{"zeta":1,"alpha":{"b":[1,2.5,-0.0,true,false,null],"a":"x"},"max":9223372036854775807,"#
            + #""min":-9223372036854775808,"real":3.1,"third":0.30000000000000004,"one":1.0,"tiny":5e-324,"#
            + #""big":1e+300,"nested":[[[{"k":[]}]],{}],"unicode":"héllo ✓ 𝄞"}"#
        #expect(try roundTrip(text) == text)
        let value = try JSONValue(parsing: text, limits: small, what: "test")
        let object = try #require(value.object)
        #expect(object.keys == ["zeta", "alpha", "max", "min", "real", "third", "one", "tiny", "big", "nested", "unicode"])
        #expect(object["max"] == .integer(.max))
        #expect(object["min"] == .integer(.min))
        #expect(object["one"] == .real(1))
        #expect(object["zeta"] == .integer(1))
    }

    @Test func stringsAreEscaped() throws {
        let tricky = "quote \" backslash \\ slash / newline \n tab \t bell \u{07} nul \u{0} del \u{7F} é 𝄞 \u{2028}"
        let text = try JSONValue.string(tricky).text()
        #expect(text == #""quote \" backslash \\ slash / newline \n tab \t bell \u0007 nul \u0000 del "# + "\u{7F} é 𝄞 \u{2028}\"")
        #expect(try JSONValue(parsing: text, limits: small, what: "test") == .string(tricky))
        let key = try JSONValue.object(JSONObject([("a\"b", .null)])).text()
        #expect(key == #"{"a\"b":null}"#)
    }

    @Test func prettyTextParsesToTheSameValue() throws {
        let value = try JSONValue(parsing: #"{"a":[1,{"b":2.5}],"c":{},"d":[]}"#, limits: small, what: "test")
        let pretty = try value.text(indent: 2)
        #expect(pretty == "{\n  \"a\": [\n    1,\n    {\n      \"b\": 2.5\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}")
        #expect(try JSONValue(parsing: pretty, limits: small, what: "test") == value)
    }

    @Test func badInputIsAFormatError() {
        #expect(status(#"{"a":1,"a":2}"#) == .format)
        #expect(status("[9223372036854775808]") == .format)
        #expect(status("[-9223372036854775809]") == .format)
        #expect(status("[1e999]") == .format)
        #expect(status("{") == .format)
        #expect(status("[1] [2]") == .format)
        #expect(status("") == .format)
        #expect(status("[NaN]") == .format)
    }

    @Test func invalidUTF8IsAFormatError() throws {
        for bytes: [UInt8] in [[0x5B, 0x22, 0xFF, 0x22, 0x5D], [0x5B, 0x22, 0xC3, 0x22, 0x5D], [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D]] {
            let outcome = bytes.withUnsafeBytes { raw -> Status? in
                do {
                    _ = try JSONDocument(parsing: raw, limits: small, what: "test")
                    return nil
                } catch { return (error as? VoiceNoteError)?.status }
            }
            #expect(outcome == .format, "\(bytes)")
        }
    }

    @Test func limitsAreCheckedBeforeParsing() {
        let tight = JSONLimits(maximumBytes: 16)
        #expect(status(#"["0123456789abcdef"]"#, limits: tight) == .tooLarge)
        #expect(status(String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)) == .format)
        #expect(status(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) == nil)
        #expect(status(String(repeating: "[", count: 65) + String(repeating: "]", count: 65)) == .format)
        // Brackets inside strings do not nest, escaped quotes do not end the string.
        let inString = "[\"" + String(repeating: "[\\\"{", count: 1000) + "\"]"
        #expect(status(inString) == nil)
        // An unterminated deep input is refused by depth, never parsed.
        #expect(status(String(repeating: "{\"a\":", count: 100_000)) == .format)
    }

    @Test func aLargeStringParses() throws {
        let payload = String(repeating: "x", count: 50 << 20)
        let value = try JSONValue(parsing: "[\"" + payload + "\"]", limits: .messages, what: "test")
        #expect(value.array?.first?.string?.utf8.count == 50 << 20)
        #expect(status("[\"" + payload + "\"]", limits: .payload) == .tooLarge)
    }

    @Test func nonFiniteRealsAreRefused() {
        #expect(throws: VoiceNoteError.self) { try JSONValue.real(.nan).text() }
        #expect(throws: VoiceNoteError.self) { try JSONValue.array([.real(.infinity)]).text() }
    }

    @Test func objectsEditInPlace() {
        var object = JSONObject([("a", .integer(1)), ("b", .integer(2)), ("c", .integer(3))])
        object["b"] = .string("two")
        object["d"] = .null
        object["a"] = nil
        #expect(object.keys == ["b", "c", "d"])
        #expect(object["b"] == .string("two"))
        // Every key is found where it is after members moved: a removal, an insertion before others, a sweep.
        object.insert("first", .integer(0), at: 0)
        object.insert("c", .integer(30), at: 0)  // there already: set in place, not moved
        #expect(object.keys == ["first", "b", "c", "d"])
        #expect(object["first"] == .integer(0) && object["b"] == .string("two") && object["c"] == .integer(30) && object["d"] == .null)
        object.removeAll { $0 == "b" || $0 == "first" }
        #expect(object.keys == ["c", "d"] && object["c"] == .integer(30) && object["b"] == nil && object["first"] == nil)
        object["b"] = .integer(2)
        #expect(object.keys == ["c", "d", "b"] && object["b"] == .integer(2))
        #expect(object == JSONObject([("c", .integer(30)), ("d", .null), ("b", .integer(2))]))
        #expect(object != JSONObject([("d", .null), ("c", .integer(30)), ("b", .integer(2))]))
    }

    @Test func repeatedKeysKeepTheirSemantics() throws {
        // Byte for byte the same key twice: jansson refuses the text.
        #expect(status(#"{"a":1,"b":2,"a":3}"#) == .format)
        // Keys that differ in bytes but are one Swift string (é precomposed and decomposed) are one key in Swift,
        // as they always were: the first position, the last value.
        let object = try #require(JSONValue(parsing: "{\"\u{E9}\":1,\"x\":2,\"e\u{301}\":3}", limits: small, what: "test").object)
        #expect(object.count == 2 && object.keys.first == "\u{E9}" && object["\u{E9}"] == .integer(3) && object["x"] == .integer(2))
        let made = JSONObject([("a", .integer(1)), ("b", .integer(2)), ("a", .integer(3))])
        #expect(made.keys == ["a", "b"] && made["a"] == .integer(3))
    }

    /// A wide object of 20,000 keys (a 1 MiB payload of ~95,000 took 14 s when each member was found by a linear
    /// search; the time is measured by `make bench`'s json section, not here): every member arrives, in order.
    @Test func aWideObjectParsesWhole() throws {
        let count = 20_000
        let text = "{" + (0..<count).map { "\"k\($0)\":\($0 % 10)" }.joined(separator: ",") + "}"
        #expect(text.utf8.count < 1 << 20)
        let object = try #require(JSONValue(parsing: text, limits: .payload, what: "test").object)
        #expect(object.count == count)
        #expect(object.keys.first == "k0" && object.keys.last == "k\(count - 1)")
        #expect(object["k0"] == .integer(0) && object["k17123"] == .integer(3) && object["k\(count)"] == nil)
        #expect(object.members.enumerated().allSatisfy { $0.element.key == "k\($0.offset)" })
        #expect(try JSONValue.object(object).text() == text)
    }
}
