import Glibc
import ReelCore

/// A C library opened when first needed (`dlopen`) instead of at start-up: libavfilter
/// and libavdevice bring about a hundred further libraries with them, whose loading and
/// symbol binding cost every `reel` command tens of milliseconds, even those that never
/// filter or capture.
// swift-format-ignore: UseSynthesizedInitializer
struct SharedLibrary {
    let name: String
    private let handle: UnsafeMutableRawPointer

    /// Opens `name` (a soname such as `libavfilter.so.8`) with its symbols bound at once and
    /// visible to libraries loaded later, as if it had been linked.
    /// - Throws: ``ReelError`` `.unsupported` with the loader's message.
    static func open(_ name: String) throws(ReelError) -> SharedLibrary {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw ReelError(.unsupported, "cannot load \(name): \(reason)", operation: "dlopen")
        }
        return SharedLibrary(name: name, handle: handle)
    }

    // Private: a library is made only by loading one.
    private init(name: String, handle: UnsafeMutableRawPointer) {
        self.name = name
        self.handle = handle
    }

    /// The function `symbol`, as the C function type the caller expects.
    /// - Throws: ``ReelError`` `.unsupported` when the library has no such symbol.
    func function<T>(_ symbol: String) throws(ReelError) -> T {
        guard let address = dlsym(handle, symbol) else {
            throw ReelError(.unsupported, "\(name) has no \(symbol)", operation: "dlsym")
        }
        return unsafeBitCast(address, to: T.self)
    }
}
