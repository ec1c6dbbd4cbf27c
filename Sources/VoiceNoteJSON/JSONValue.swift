/// A JSON value as voicenote keeps it: objects remember their key order, integers are exact 64-bit numbers and
/// reals stay reals (`1.0` does not become `1`), so a document read and written back is the same document.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent, within Int64.
    case integer(Int64)
    /// A number written with a fraction or an exponent; always finite.
    case real(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, when this is one.
    public var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The number as a Double, when this is an integer or a real.
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    /// The object, when this is one.
    public var object: JSONObject? {
        if case .object(let value) = self { value } else { nil }
    }

    /// The elements, when this is an array.
    public var array: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }
}

/// A JSON object's members in the order they were read or added. Keys are unique (compared as Swift compares
/// strings): setting an existing key replaces its value in place, so an edit keeps the order. A key's position is
/// kept in a table beside the members, so reading, setting and appending a key take constant time and an object of
/// n members is made in O(n), whatever its keys; removing or inserting before the end moves the members after it.
public struct JSONObject: Sendable, Equatable, Sequence {
    /// One key and its value.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue

        /// A member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members, in order.
    public private(set) var members: [Member]
    /// Each key's index in `members`.
    private var positions: [String: Int]

    /// An object with these members; a repeated key keeps its first position and its last value.
    public init(_ members: [(String, JSONValue)] = []) {
        self.members = []
        positions = [:]
        self.members.reserveCapacity(members.count)
        positions.reserveCapacity(members.count)
        for (key, value) in members { self[key] = value }
    }

    /// Objects are equal when their members are, in order.
    public static func == (left: JSONObject, right: JSONObject) -> Bool { left.members == right.members }

    /// The keys, in order.
    public var keys: [String] { members.map(\.key) }

    /// How many members.
    public var count: Int { members.count }

    /// Whether there are none.
    public var isEmpty: Bool { members.isEmpty }

    /// The value for a key; setting nil removes the member, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { positions[key].map { members[$0].value } }
        set {
            switch (positions[key], newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): remove(at: index)
            case (nil, let value?): insertNew(key, value, at: members.count)
            case (nil, nil): break
            }
        }
    }

    /// Sets `key` to `value`: in place when the key is there, else inserted at `index` (clamped to the members).
    public mutating func insert(_ key: String, _ value: JSONValue, at index: Int) {
        if let existing = positions[key] {
            members[existing].value = value
        } else {
            insertNew(key, value, at: Swift.max(0, Swift.min(index, members.count)))
        }
    }

    /// Removes every member whose key `shouldRemove` accepts, keeping the others' order, in one pass.
    public mutating func removeAll(where shouldRemove: (String) throws -> Bool) rethrows {
        let kept = try members.filter { try !shouldRemove($0.key) }
        guard kept.count != members.count else { return }
        members = kept
        reindex(from: 0)
    }

    /// Iterates over the members in order.
    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    private mutating func insertNew(_ key: String, _ value: JSONValue, at index: Int) {
        members.insert(Member(key: key, value: value), at: index)
        if index == members.count - 1 { positions[key] = index } else { reindex(from: index) }
    }

    private mutating func remove(at index: Int) {
        positions[members.remove(at: index).key] = nil
        reindex(from: index)
    }

    /// Records the positions of the members from `start` on (those that moved).
    private mutating func reindex(from start: Int) {
        if start == 0 { positions.removeAll(keepingCapacity: true) }
        for index in start..<members.count { positions[members[index].key] = index }
    }
}
