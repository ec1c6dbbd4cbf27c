import CShims

/// The processors this process may run on.
public enum Processors {
    /// The CPUs in this process's affinity mask (`sched_getaffinity`: a container's or `taskset`'s limit, not the
    /// machine's count); at least 1.
    public static var available: Int { Int(vnshim_available_cpus()) }
}
