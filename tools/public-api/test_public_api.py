#!/usr/bin/env python3
"""Tests of public_api.py on a fixture workspace written to a temporary directory: what a listing
holds, and that `check` refuses a public API change until CHANGELOG.md's Unreleased section has
an entry for it, `update` refuses to record the change without one, and a changelog or listing
edited outside `update` is caught.

    python3 tools/public-api/test_public_api.py     # CI runs it; exit 1 on a failure

Each test builds the fixture with rustdoc on the toolchain `rust-toolchain.toml` pins, in a
target directory of its own, so that no build is reused across an edit.
"""

import contextlib
import io
import re
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

import public_api  # noqa: E402

FIXTURE_LIB = """\
//! A published crate of the fixture workspace.

/// A function.
pub fn one(x: u8) -> u8 {
    x
}

/// A struct with a private field.
pub struct Point {
    /// Public.
    pub x: i32,
    y: i32,
}

impl Point {
    /// A method.
    pub fn new(x: i32) -> Self {
        Point { x, y: 0 }
    }

    fn hidden_helper(&self) -> i32 {
        self.y
    }
}

/// An enum that may grow.
#[non_exhaustive]
#[derive(Debug, Clone)]
pub enum Shape {
    /// A unit variant.
    Empty,
    /// A tuple variant.
    Circle(f64),
}

/// A trait with a provided method.
pub trait Area {
    /// Required.
    fn area(&self) -> f64;
    /// Provided.
    fn name(&self) -> &str {
        "shape"
    }
}

impl Area for Point {
    fn area(&self) -> f64 {
        0.0
    }
}

mod inner {
    /// Reached only through the re-export below.
    pub struct Reexported;
}

pub use inner::Reexported;

/// Not public API.
#[doc(hidden)]
pub fn secret() {}

/// Behind a feature, which the listing turns on.
#[cfg(feature = "extra")]
pub fn gated() {}

#[allow(dead_code)]
fn private() {}
"""

CHANGELOG = """\
# Changelog

## [Unreleased]

### Added

- The fixture crate.
"""


class Fixture:
    """A workspace of one published crate, `fixture`, and one crate with `publish = false`."""

    def __init__(self, root):
        self.root = Path(root)
        (self.root / "fixture" / "src").mkdir(parents=True)
        (self.root / "internal" / "src").mkdir(parents=True)
        (self.root / "listings").mkdir()
        shutil.copy(REPO / "rust-toolchain.toml", self.root / "rust-toolchain.toml")
        (self.root / "Cargo.toml").write_text(
            '[workspace]\nresolver = "2"\nmembers = ["fixture", "internal"]\n')
        (self.root / "fixture" / "Cargo.toml").write_text(
            '[package]\nname = "fixture"\nversion = "0.1.0"\nedition = "2021"\n\n'
            '[features]\nextra = []\n')
        (self.root / "internal" / "Cargo.toml").write_text(
            '[package]\nname = "internal"\nversion = "0.1.0"\nedition = "2021"\n'
            'publish = false\n')
        (self.root / "internal" / "src" / "lib.rs").write_text("pub fn internal() {}\n")
        self.lib.write_text(FIXTURE_LIB)
        self.changelog.write_text(CHANGELOG)
        self.builds = 0

    @property
    def lib(self):
        return self.root / "fixture" / "src" / "lib.rs"

    @property
    def changelog(self):
        return self.root / "CHANGELOG.md"

    @property
    def listing(self):
        return self.root / "listings" / "fixture.txt"

    def run(self, command):
        """Runs public_api.py's `command` on the fixture: (exit code, what it wrote to stderr)."""
        self.builds += 1
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = public_api.main([
                command, "--root", str(self.root), "--listings", str(self.root / "listings"),
                "--changelog", str(self.changelog),
                "--target-dir", str(self.root / "target" / f"build-{self.builds}")])
        return code, err.getvalue()

    def add_to_lib(self, text):
        self.lib.write_text(self.lib.read_text() + text)

    def add_entry(self, text):
        self.changelog.write_text(self.changelog.read_text() + f"- {text}\n")


class PublicApiTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="public-api-test-")
        self.fx = Fixture(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def recorded(self):
        """The fixture with its listing recorded, as a repository that passes `check`."""
        code, err = self.fx.run("update")
        self.assertEqual(code, 0, err)
        code, err = self.fx.run("check")
        self.assertEqual(code, 0, err)
        return self.fx.listing.read_text()

    def test_listing_holds_every_public_item_and_nothing_else(self):
        lines = set(self.recorded().splitlines())
        for line in [
            "pub fn fixture::one(u8) -> u8",
            "pub struct fixture::Point (has private fields)",
            "pub fixture::Point::x: i32",
            "impl fixture::Point",
            "pub fn fixture::Point::new(i32) -> Self",
            "#[non_exhaustive] pub enum fixture::Shape",
            "pub fixture::Shape::Empty",
            "pub fixture::Shape::Circle(f64)",
            "impl core::clone::Clone for fixture::Shape",
            "impl core::marker::Send for fixture::Shape",
            "pub trait fixture::Area",
            "pub fn fixture::Area::area(&self) -> f64",
            "pub fn fixture::Area::name(&self) -> &str (provided)",
            "impl fixture::Area for fixture::Point",
            "pub struct fixture::Reexported;",
            "pub fn fixture::gated()",
        ]:
            self.assertIn(line, lines)
        text = "\n".join(lines)
        # Private items, hidden items, private modules' paths, the standard library's blanket
        # impls and the crate that is not published stay out.
        for absent in ["Point::y", "hidden_helper", "secret", "fixture::private", "inner::",
                       "core::convert::From<T>", "internal"]:
            self.assertNotIn(absent, text)

    def test_an_api_change_fails_the_check_until_the_changelog_has_an_entry(self):
        before = self.recorded()
        self.fx.add_to_lib("\n/// New.\npub fn two() {}\n")

        code, err = self.fx.run("check")
        self.assertEqual(code, 1)
        self.assertIn("the public API of fixture changed", err)
        self.assertIn("+pub fn fixture::two()", err)

        # The listing cannot be brought up to date without an entry.
        code, err = self.fx.run("update")
        self.assertEqual(code, 1)
        self.assertIn("did not since the listings were last written", err)
        self.assertEqual(self.fx.listing.read_text(), before)
        code, _ = self.fx.run("check")
        self.assertEqual(code, 1)

        self.fx.add_entry("`two`, a second function.")
        code, err = self.fx.run("update")
        self.assertEqual(code, 0, err)
        code, err = self.fx.run("check")
        self.assertEqual(code, 0, err)
        self.assertIn("pub fn fixture::two()", self.fx.listing.read_text())

    def test_a_removed_item_and_a_changed_signature_fail_the_check(self):
        self.recorded()
        lib = FIXTURE_LIB.replace("pub fn one(x: u8) -> u8", "pub fn one(x: u16) -> u8")
        lib = lib.replace("#[doc(hidden)]\npub fn secret() {}\n", "")
        self.fx.lib.write_text(lib.replace("    /// A unit variant.\n    Empty,\n", ""))
        code, err = self.fx.run("check")
        self.assertEqual(code, 1)
        self.assertIn("-pub fn fixture::one(u8) -> u8", err)
        self.assertIn("+pub fn fixture::one(u16) -> u8", err)
        self.assertIn("-pub fixture::Shape::Empty", err)
        # The hidden item was never listed: removing it is no change.
        self.assertNotIn("secret", err)

    def test_a_change_that_is_not_public_passes(self):
        self.recorded()
        self.fx.lib.write_text(FIXTURE_LIB.replace("self.y", "self.y + 1")
                               .replace("fn private() {}", "fn private() -> u8 { 1 }"))
        code, err = self.fx.run("check")
        self.assertEqual(code, 0, err)

    def test_a_changelog_edited_without_update_fails_until_recorded(self):
        self.recorded()
        self.fx.add_entry("A note with no change to the API.")
        code, err = self.fx.run("check")
        self.assertEqual(code, 1)
        self.assertIn("Unreleased section changed since `update` last recorded it", err)
        code, err = self.fx.run("update")
        self.assertEqual(code, 0, err)
        code, err = self.fx.run("check")
        self.assertEqual(code, 0, err)

    def test_a_listing_written_by_hand_fails(self):
        """A listing brought to the new API without `update` (say, one side of a merge) does not
        have the recorded digest."""
        self.recorded()
        other = Fixture(Path(self.dir.name) / "other")
        other.add_to_lib("\n/// New.\npub fn two() {}\n")
        other.add_entry("`two`.")
        self.assertEqual(other.run("update")[0], 0)
        self.fx.add_to_lib("\n/// New.\npub fn two() {}\n")
        shutil.copy(other.listing, self.fx.listing)
        shutil.copy(other.changelog, self.fx.changelog)
        code, err = self.fx.run("check")
        self.assertEqual(code, 1)
        self.assertIn("not the ones `update` last recorded", err)

    def test_the_derive_key_lists_must_match_the_keys_it_reads(self):
        lines = public_api.derive_keys(REPO)
        self.assertEqual(len(lines), 4)
        self.assertTrue(any(re.search(r"field: .*\bjson_name\b", line) for line in lines))
        # A key read by the parser but missing from its list is refused.
        fake = Path(self.dir.name) / "derive"
        (fake / "kafka-wire-derive" / "src").mkdir(parents=True)
        src = (REPO / "kafka-wire-derive" / "src" / "attr.rs").read_text()
        src += '\nfn extra(meta: Meta) -> bool { meta.path.is_ident("brand_new") }\n'
        (fake / "kafka-wire-derive" / "src" / "attr.rs").write_text(src)
        with self.assertRaisesRegex(public_api.Failure, "brand_new not listed"):
            public_api.derive_keys(fake)


if __name__ == "__main__":
    unittest.main(verbosity=2)
