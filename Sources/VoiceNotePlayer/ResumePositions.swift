/// Where each location was left, in memory and bounded: the least recently used go first.
struct ResumePositions {
    private var seconds: [LocationKey: Double] = [:]
    private var order: [LocationKey] = []  // least recently used first
    /// The most locations kept.
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// The position kept for `key`, if any.
    func position(of key: LocationKey) -> Double? { seconds[key] }

    /// Keeps `position` for `key` (a position of 0 forgets it).
    mutating func keep(_ position: Double, for key: LocationKey) {
        forget(key)
        guard position > 0, limit > 0 else { return }
        seconds[key] = position
        order.append(key)
        if order.count > limit { seconds[order.removeFirst()] = nil }
    }

    /// Forgets `key` (stop, the end of the item).
    mutating func forget(_ key: LocationKey) {
        guard seconds.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
    }

    /// How many locations are kept.
    var count: Int { seconds.count }
}
