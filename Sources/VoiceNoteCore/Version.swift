import CVoiceNote

/// The library's version: the public header's `VN_VERSION_*` macros, the one place it is written.
public enum Version {
    /// Major version; the SONAME number.
    public static let major = Int(VN_VERSION_MAJOR)
    /// Minor version.
    public static let minor = Int(VN_VERSION_MINOR)
    /// Patch version.
    public static let patch = Int(VN_VERSION_PATCH)
    /// "major.minor.patch".
    public static let string = "\(major).\(minor).\(patch)"
    /// major * 1000000 + minor * 1000 + patch.
    public static var number: Int { major * 1_000_000 + minor * 1000 + patch }
}
