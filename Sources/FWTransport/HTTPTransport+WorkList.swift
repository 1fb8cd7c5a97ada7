// MARK: - HTTPTransport.WorkList: the work one decision makes
//
// What the transport decides under its lock it does after (`perform`). Nearly every decision makes one item
// or none: a request leased an idle connection, a connection finished its request. The first item is kept
// inline and only a second makes an array; an array made for every request was one of its allocations.

extension HTTPTransport {
    /// Work decided under the lock, in the order decided.
    struct WorkList: Sequence {
        private var first: Work?
        private var rest: [Work] = []

        /// No work.
        init() {}

        /// One item.
        init(_ item: Work) {
            first = item
        }

        mutating func append(_ item: Work) {
            if first == nil { first = item } else { rest.append(item) }
        }

        static func += (list: inout WorkList, more: WorkList) {
            for item in more { list.append(item) }
        }

        func makeIterator() -> Iterator {
            Iterator(first: first, rest: rest.makeIterator())
        }

        struct Iterator: IteratorProtocol {
            fileprivate var first: Work?
            fileprivate var rest: IndexingIterator<[Work]>

            mutating func next() -> Work? {
                first.take() ?? rest.next()
            }
        }
    }
}
