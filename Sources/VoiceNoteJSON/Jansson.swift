import CJansson
import VoiceNoteCore

/// Every jansson call of voicenote (the module's one choke point for the C library): parsing into a tree, reading
/// the tree, and escaping strings for the encoder.
enum Jansson {
    /// Parses exactly `bytes` (one value, nothing after it): duplicate keys, invalid UTF-8, integers beyond Int64
    /// and reals beyond Double are errors. NUL characters inside strings are kept. - Returns: a new reference.
    static func parse(_ bytes: UnsafeRawBufferPointer, what: String) throws(VoiceNoteError) -> UnsafeMutablePointer<json_t> {
        var error = json_error_t()
        let flags = Int(JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL)
        let empty: CChar = 0
        let loaded = withUnsafePointer(to: empty) { nothing in
            json_loadb(bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? nothing, bytes.count, flags, &error)
        }
        guard let root = loaded else {
            let reason = withUnsafeBytes(of: &error.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let code = json_error_code(&error)
            let status: Status = code == json_error_out_of_memory ? .noMemory : .format
            throw VoiceNoteError(status, "\(what) is not valid JSON: \(reason) (line \(error.line), column \(error.column))")
        }
        return root
    }

    static func release(_ node: UnsafeMutablePointer<json_t>) { json_decref(node) }

    static func kind(_ node: UnsafeMutablePointer<json_t>) -> json_type { node.pointee.type }

    static func integer(_ node: UnsafeMutablePointer<json_t>) -> Int64 { Int64(json_integer_value(node)) }

    static func real(_ node: UnsafeMutablePointer<json_t>) -> Double { json_real_value(node) }

    static func string(_ node: UnsafeMutablePointer<json_t>) -> String {
        let count = json_string_length(node)
        guard let start = json_string_value(node) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// Whether a string node equals `text` byte for byte (no String is made).
    static func string(_ node: UnsafeMutablePointer<json_t>, equals text: String) -> Bool {
        let count = json_string_length(node)
        guard let start = json_string_value(node) else { return text.isEmpty }
        var text = text
        return text.withUTF8 { UnsafeRawBufferPointer($0).elementsEqual(UnsafeRawBufferPointer(start: start, count: count)) }
    }

    static func count(_ array: UnsafeMutablePointer<json_t>) -> Int { json_array_size(array) }

    static func element(_ array: UnsafeMutablePointer<json_t>, _ index: Int) -> UnsafeMutablePointer<json_t>? {
        json_array_get(array, index)
    }

    static func member(_ object: UnsafeMutablePointer<json_t>, _ key: String) -> UnsafeMutablePointer<json_t>? {
        json_object_get(object, key)
    }

    /// Calls `body` with each member of an object in its order.
    static func forEachMember(_ object: UnsafeMutablePointer<json_t>, _ body: (String, UnsafeMutablePointer<json_t>) -> Void) {
        var iterator = json_object_iter(object)
        while let current = iterator {
            if let key = json_object_iter_key(current), let value = json_object_iter_value(current) {
                let name = String(decoding: UnsafeRawBufferPointer(start: key, count: json_object_iter_key_len(current)), as: UTF8.self)
                body(name, value)
            }
            iterator = json_object_iter_next(object, current)
        }
    }

    /// Appends `text` as a JSON string (quotes and escapes by jansson) to `output`.
    static func appendQuoted(_ text: String, to output: inout [UInt8]) throws(VoiceNoteError) {
        let node = text.withCString { json_stringn_nocheck($0, text.utf8.count) }
        guard let node else { throw VoiceNoteError(.noMemory, "no memory for a JSON string") }
        defer { json_decref(node) }
        let written = withUnsafeMutablePointer(to: &output) { pointer in
            json_dump_callback(node, { chunk, size, context in
                guard let chunk, let context else { return -1 }
                let output = context.assumingMemoryBound(to: [UInt8].self)
                output.pointee.append(contentsOf: UnsafeRawBufferPointer(start: chunk, count: size))
                return 0
            }, pointer, Int(JSON_ENCODE_ANY))
        }
        guard written == 0 else { throw VoiceNoteError(.noMemory, "could not escape a JSON string") }
    }
}
