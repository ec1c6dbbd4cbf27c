import CVoiceNote
import VoiceNoteCore
import VoiceNoteNetwork

// The media cache's settings (`vn_cache_*`): the process's one cache, `MediaCache.shared`.

@c @implementation public func vn_cache_set_directory(_ path: UnsafePointer<CChar>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        try MediaCache.shared.setDirectory(try path.map { (text) throws(VoiceNoteError) in try utf8String(text, "path") })
    }
}

@c @implementation public func vn_cache_get_directory(_ outPath: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outPath?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        try required(outPath, "out_path").pointee = try ownedCString(MediaCache.shared.directory)
    }
}

@c @implementation public func vn_cache_set_limit(_ bytes: Int64) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try MediaCache.shared.setLimit(bytes) }
}

@c @implementation public func vn_cache_get_limit(_ outBytes: UnsafeMutablePointer<Int64>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try required(outBytes, "out_bytes").pointee = MediaCache.shared.limit }
}

@c @implementation public func vn_cache_get_size(_ outBytes: UnsafeMutablePointer<Int64>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let out = try required(outBytes, "out_bytes")
        out.pointee = try MediaCache.shared.size()
    }
}

@c @implementation public func vn_cache_clear() -> Int32 {
    abiCall { () throws(VoiceNoteError) in try MediaCache.shared.clear() }
}
