/// Where each location was left: in memory and bounded (the least recently used go first), and, with a store, across
/// processes too (`ResumeStore`: written as positions are kept and forgotten, read when memory has none).
struct ResumePositions {
    private var seconds: [LocationKey: Double] = [:]
    private var order: [LocationKey] = []  // least recently used first
    /// Notes heard to the listened mark by this player (those without a store key too), bounded like the positions.
    private var listened: Set<LocationKey> = []
    private var listenedOrder: [LocationKey] = []
    /// The most locations kept in memory.
    let limit: Int
    /// The store shared with other players and processes; nil keeps positions in memory only.
    let store: ResumeStore?

    init(limit: Int, store: ResumeStore? = nil) {
        self.limit = limit
        self.store = store
    }

    /// The position kept for `key`, if any: this player's, else the store's.
    func position(of key: LocationKey) -> Double? {
        if let kept = seconds[key] { return kept }
        guard let store, let text = key.storeKey else { return nil }
        return store.position(of: text)
    }

    /// Keeps `position` for `key` (a position of 0 forgets it), here and in the store (one change of its file).
    mutating func keep(_ position: Double, for key: LocationKey) {
        forgetInMemory(key)
        if let store, let text = key.storeKey { store.keep(position, for: text) }
        guard position > 0, limit > 0 else { return }
        seconds[key] = position
        order.append(key)
        if order.count > limit { seconds[order.removeFirst()] = nil }
    }

    /// Forgets `key` (stop, the end of the item), here and in the store.
    mutating func forget(_ key: LocationKey) {
        if let store, let text = key.storeKey { store.forget(text) }
        forgetInMemory(key)
    }

    private mutating func forgetInMemory(_ key: LocationKey) {
        guard seconds.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
    }

    /// Whether this player heard `key` to the listened mark (memory only).
    func isListenedHere(_ key: LocationKey) -> Bool { listened.contains(key) }

    /// Whether `key` was heard to the listened mark: by this player, or, in the store, by any.
    func isListened(_ key: LocationKey) -> Bool {
        if listened.contains(key) { return true }
        guard let store, let text = key.storeKey else { return false }
        return store.isListened(text)
    }

    /// Marks `key` listened, here and in the store; true when it was not listened before (the `listened` event's
    /// rule: once per note).
    mutating func markListened(_ key: LocationKey) -> Bool {
        let first = !isListened(key)
        if first, let store, let text = key.storeKey { store.setListened(true, for: text) }
        if listened.insert(key).inserted {
            listenedOrder.append(key)
            if listenedOrder.count > max(limit, 1) { listened.remove(listenedOrder.removeFirst()) }
        }
        return first
    }

    /// How many locations are kept in memory.
    var count: Int { seconds.count }
}

extension LocationKey {
    /// The key a store keeps a position under: the path, or the URL's key (or the URL); nil for a source.
    var storeKey: String? {
        switch self {
        case .path(let path): path
        case .remote(let key): key
        case .source: nil
        }
    }
}
