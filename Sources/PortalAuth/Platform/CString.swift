/// Text out of C buffers: everything before the first NUL, as UTF-8.
enum CString {
    /// A `[CChar]` buffer a C function filled.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A fixed-size `char[N]` field of a C struct (imported as a tuple).
    static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
