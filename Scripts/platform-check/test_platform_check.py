"""Tests of the platform checker's pure parts: `python3 -m unittest discover Scripts/platform-check`."""

import unittest

from availability import Requirement, SourceScopes, SymbolGraphs
from manifests import Package, check_floors, parse_version

FLOOR = (14, 0, 0)

SOURCE = '''
func plain() {
    use()                                       // line 3
    if #available(macOS 15, iOS 18, *) {
        use()                                   // line 5
    }
    use()                                       // line 7
}

func guarded() {
    guard #available(macOS 15, *) else { return }
    use()                                       // line 12
}
func after() { use() }                          // line 14

@available(macOS 15, *)
struct Raised {
    func inside() { use() }                     // line 18
}
let text = "#available(macOS 99, *) {"          // line 20
// if #available(macOS 99, *) {
@available(macOS 16, *) let stored = use()      // line 22
let unraised = use()                            // line 23
'''


class SourceScopesTests(unittest.TestCase):
    def setUp(self):
        self.scopes = SourceScopes(SOURCE)

    def floor(self, line, platform="macos"):
        return self.scopes.floor_at(line, 5, platform, FLOOR)

    def test_if_available_raises_its_body_only(self):
        self.assertEqual(self.floor(3), FLOOR)
        self.assertEqual(self.floor(5), (15, 0, 0))
        self.assertEqual(self.floor(5, "ios"), (18, 0, 0))
        self.assertEqual(self.floor(7), FLOOR)

    def test_a_platform_not_named_keeps_its_floor(self):
        self.assertEqual(self.floor(5, "tvos"), FLOOR)

    def test_guard_available_raises_the_rest_of_its_block(self):
        self.assertEqual(self.floor(12), (15, 0, 0))
        self.assertEqual(self.floor(14), FLOOR)

    def test_available_attribute_raises_the_declaration(self):
        self.assertEqual(self.floor(18), (15, 0, 0))
        self.assertEqual(self.floor(22), (16, 0, 0))
        self.assertEqual(self.floor(23), FLOOR)

    def test_strings_and_comments_raise_nothing(self):
        self.assertEqual(self.floor(20), FLOOR)
        self.assertEqual(len(self.scopes.regions), 4)


class RequirementTests(unittest.TestCase):
    def test_introduced_above_the_floor(self):
        self.assertEqual(Requirement(introduced=(15, 0, 0)).violated_by(FLOOR), "introduced in 15.0")
        self.assertIsNone(Requirement(introduced=(14, 0, 0)).violated_by(FLOOR))

    def test_unavailable_and_obsoleted(self):
        self.assertEqual(Requirement(unavailable=True).violated_by(FLOOR), "unavailable")
        self.assertEqual(Requirement(obsoleted=(13, 0, 0)).violated_by(FLOOR), "obsoleted in 13.0")

    def test_a_requirement_with_an_older_default_implementation_is_no_obstacle(self):
        graphs = SymbolGraphs()
        graphs.by_usr = {"req": {"macos": Requirement(introduced=(15, 0, 0))}, "impl": {}}
        graphs.default_implementations = {"req": ["impl"]}
        self.assertIsNone(graphs.requirement("req", "macos", FLOOR))
        graphs.default_implementations = {}
        self.assertIsNotNone(graphs.requirement("req", "macos", FLOOR))


def manifest(name, platforms, targets, products, dependencies=()):
    return {
        "name": name,
        "platforms": [{"platformName": p, "version": v} for p, v in platforms],
        "targets": targets,
        "products": products,
        "dependencies": [{"sourceControl": [{"identity": d}]} for d in dependencies],
    }


class FloorTests(unittest.TestCase):
    def graph(self, root_floor):
        root = Package("app", "/app", manifest(
            "App", [("macos", root_floor)],
            [{"name": "Server", "type": "regular", "dependencies": [{"product": ["Web", "web", None, None]}]},
             {"name": "Client", "type": "regular",
              "dependencies": [{"product": ["Web", "web", None, {"platformNames": ["linux"]}]}]}],
            [], ["web"]))
        web = Package("web", "/web", manifest(
            "Web", [("macos", "14.0")], [{"name": "Web", "type": "regular", "dependencies": []}],
            [{"name": "Web", "targets": ["Web"]}]))
        return {"__root__": root, "app": root, "web": web}

    def test_a_floor_below_a_product_is_named(self):
        problems = check_floors(self.graph("13.0"), {"macos": parse_version("13.0")})
        self.assertEqual(len(problems), 1)
        self.assertIn("App/Server (macOS 13.0) depends on product 'Web' of web, which requires macOS 14.0",
                      problems[0][0])

    def test_an_equal_floor_passes(self):
        self.assertEqual(check_floors(self.graph("14.0"), {"macos": parse_version("14.0")}), [])


if __name__ == "__main__":
    unittest.main()
