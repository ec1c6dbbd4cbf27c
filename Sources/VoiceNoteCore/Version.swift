/// The library's version; the C header's `VN_VERSION_*` macros must agree (a test checks).
public enum Version {
    /// Major version; the SONAME number.
    public static let major = 0
    /// Minor version.
    public static let minor = 1
    /// Patch version.
    public static let patch = 0
    /// "major.minor.patch".
    public static let string: StaticString = "0.1.0"
    /// major * 1000000 + minor * 1000 + patch.
    public static var number: Int { major * 1_000_000 + minor * 1000 + patch }
}
