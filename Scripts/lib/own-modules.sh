# Sourced by Scripts/profile.sh and Scripts/alloc-budget.sh: a build of one of this package's products that
# cannot run with a stale layout.
#
#   build_own_product CONFIGURATION PRODUCT    swift build -c CONFIGURATION --product PRODUCT, after removing
#                                              this package's own modules' build products when a Swift
#                                              source changed since the last build made through here; prints
#                                              the built binary's path
#
# Why: SwiftPM's incremental build does not always recompile a module when a module it imports changed a
# type's stored properties. The importer keeps the old layout and the binary misbehaves (seen here: a
# profile client whose every callback ran off the delegate queue, and crashes, after `URLSession` gained a
# stored property). The dependencies' modules are never removed, only ours (Sources/*, Tests/*).
#
# When a build has no stamp yet it is trusted in the debug configuration (Scripts/test.sh's `swift build
# --build-tests` made it a moment ago, on CI from nothing) and rebuilt in release (profiling and budgets
# must not measure an old layout).

build_own_product() {
    local configuration=$1 product=$2
    local bin stamp
    bin=$(swift build -c "$configuration" --show-bin-path)
    stamp="$bin/.own-modules-stamp"
    if [ -d "$bin" ] && own_sources_changed "$stamp" "$configuration"; then
        echo "build_own_product: Swift sources changed since the last $configuration build here:" \
            "rebuilding this package's modules" >&2
        local target
        for target in Sources/*/ Tests/*/; do
            rm -rf "$bin/$(basename "$target").build"
        done
        rm -f "$bin/../$configuration.yaml" "$bin/../../$configuration.yaml"
    fi
    # Stamped with the time the build started: a source saved during the build counts as changed next time.
    mkdir -p "$bin"
    touch "$stamp.next"
    swift build -c "$configuration" --product "$product" >&2
    mv "$stamp.next" "$stamp"
    echo "$bin/$product"
}

# own_sources_changed STAMP CONFIGURATION: true when a Swift source is newer than STAMP, or there is no STAMP
# and the configuration is release.
own_sources_changed() {
    local stamp=$1 configuration=$2
    if [ ! -f "$stamp" ]; then
        [ "$configuration" = release ]
        return
    fi
    [ -n "$(find Sources Tests -name '*.swift' -newer "$stamp" -print -quit)" ]
}
