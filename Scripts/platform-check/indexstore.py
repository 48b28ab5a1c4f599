"""Reads a Clang/Swift index store through the toolchain's libIndexStore (ctypes).

Only what the platform checker needs: the units of a store (one per compiled source file),
their main file, module name and module dependencies, and the symbol occurrences of their
records with USR, roles, position and the USRs of the related (containing) symbols.
"""

import ctypes
import os

# indexstore_symbol_role_t bits (indexstore.h).
ROLE_DECLARATION = 1 << 0
ROLE_DEFINITION = 1 << 1
ROLE_REFERENCE = 1 << 2
ROLE_CALL = 1 << 5
ROLE_IMPLICIT = 1 << 8
REL_CHILDOF = 1 << 9
REL_BASEOF = 1 << 10
REL_OVERRIDEOF = 1 << 11
REL_CALLEDBY = 1 << 13
REL_EXTENDEDBY = 1 << 14
REL_ACCESSOROF = 1 << 15
REL_CONTAINEDBY = 1 << 16

# indexstore_unit_dependency_kind_t
DEPENDENCY_UNIT = 1
DEPENDENCY_RECORD = 2


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]

    def text(self):
        if not self.data:
            return ""
        return ctypes.string_at(self.data, self.length).decode("utf-8", "replace")


_APPLIER = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p, ctypes.c_void_p)


def _load(library_path):
    lib = ctypes.CDLL(library_path)
    void_p = ctypes.c_void_p
    signatures = {
        "indexstore_store_create": (void_p, [ctypes.c_char_p, ctypes.POINTER(void_p)]),
        "indexstore_store_dispose": (None, [void_p]),
        "indexstore_error_get_description": (ctypes.c_char_p, [void_p]),
        "indexstore_unit_reader_create": (void_p, [void_p, ctypes.c_char_p, ctypes.POINTER(void_p)]),
        "indexstore_unit_reader_dispose": (None, [void_p]),
        "indexstore_unit_reader_get_main_file": (_StringRef, [void_p]),
        "indexstore_unit_reader_get_module_name": (_StringRef, [void_p]),
        "indexstore_unit_reader_get_target": (_StringRef, [void_p]),
        "indexstore_unit_reader_is_system_unit": (ctypes.c_bool, [void_p]),
        "indexstore_unit_reader_dependencies_apply_f": (ctypes.c_bool, [void_p, void_p, _APPLIER]),
        "indexstore_unit_dependency_get_kind": (ctypes.c_int, [void_p]),
        "indexstore_unit_dependency_get_name": (_StringRef, [void_p]),
        "indexstore_unit_dependency_get_modulename": (_StringRef, [void_p]),
        "indexstore_unit_dependency_get_filepath": (_StringRef, [void_p]),
        "indexstore_unit_dependency_is_system": (ctypes.c_bool, [void_p]),
        "indexstore_record_reader_create": (void_p, [void_p, ctypes.c_char_p, ctypes.POINTER(void_p)]),
        "indexstore_record_reader_dispose": (None, [void_p]),
        "indexstore_record_reader_occurrences_apply_f": (ctypes.c_bool, [void_p, void_p, _APPLIER]),
        "indexstore_occurrence_get_symbol": (void_p, [void_p]),
        "indexstore_occurrence_get_roles": (ctypes.c_uint64, [void_p]),
        "indexstore_occurrence_get_line_col": (None, [void_p, ctypes.POINTER(ctypes.c_uint),
                                                      ctypes.POINTER(ctypes.c_uint)]),
        "indexstore_occurrence_relations_apply_f": (ctypes.c_bool, [void_p, void_p, _APPLIER]),
        "indexstore_symbol_relation_get_roles": (ctypes.c_uint64, [void_p]),
        "indexstore_symbol_relation_get_symbol": (void_p, [void_p]),
        "indexstore_symbol_get_usr": (_StringRef, [void_p]),
        "indexstore_symbol_get_name": (_StringRef, [void_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


class Occurrence:
    __slots__ = ("usr", "name", "roles", "line", "column", "related")

    def __init__(self, usr, name, roles, line, column, related):
        self.usr = usr
        self.name = name
        self.roles = roles
        self.line = line
        self.column = column
        # [(roles, usr, name)] of the related symbols (the containing declaration, …).
        self.related = related


class Unit:
    __slots__ = ("name", "main_file", "module", "target", "is_system", "records", "module_dependencies")

    def __init__(self, name, main_file, module, target, is_system, records, module_dependencies):
        self.name = name
        self.main_file = main_file
        self.module = module
        self.target = target
        self.is_system = is_system
        # Record names of the unit's own source files: [(record name, file path)].
        self.records = records
        # Names of the modules the unit imports (directly or through its module units).
        self.module_dependencies = module_dependencies


class IndexStore:
    def __init__(self, store_path, library_path):
        self._lib = _load(library_path)
        error = ctypes.c_void_p()
        self._store = self._lib.indexstore_store_create(store_path.encode(), ctypes.byref(error))
        if not self._store:
            raise RuntimeError(self._describe(error, f"cannot open the index store at {store_path}"))
        self._units_dir = self._find_units_dir(store_path)

    @staticmethod
    def _find_units_dir(store_path):
        for entry in sorted(os.listdir(store_path)):
            candidate = os.path.join(store_path, entry, "units")
            if os.path.isdir(candidate):
                return candidate
        raise RuntimeError(f"no units in the index store at {store_path}")

    def _describe(self, error, fallback):
        if error and error.value:
            return self._lib.indexstore_error_get_description(error).decode("utf-8", "replace")
        return fallback

    def unit_names(self):
        return sorted(os.listdir(self._units_dir))

    def unit(self, unit_name):
        lib = self._lib
        error = ctypes.c_void_p()
        reader = lib.indexstore_unit_reader_create(self._store, unit_name.encode(), ctypes.byref(error))
        if not reader:
            raise RuntimeError(self._describe(error, f"cannot read unit {unit_name}"))
        try:
            records = []
            modules = []

            def visit(_context, dependency):
                kind = lib.indexstore_unit_dependency_get_kind(dependency)
                if kind == DEPENDENCY_RECORD:
                    records.append((lib.indexstore_unit_dependency_get_name(dependency).text(),
                                    lib.indexstore_unit_dependency_get_filepath(dependency).text()))
                elif kind == DEPENDENCY_UNIT:
                    module = lib.indexstore_unit_dependency_get_modulename(dependency).text()
                    if module:
                        modules.append(module)
                return True

            applier = _APPLIER(visit)
            lib.indexstore_unit_reader_dependencies_apply_f(reader, None, applier)
            return Unit(
                name=unit_name,
                main_file=lib.indexstore_unit_reader_get_main_file(reader).text(),
                module=lib.indexstore_unit_reader_get_module_name(reader).text(),
                target=lib.indexstore_unit_reader_get_target(reader).text(),
                is_system=lib.indexstore_unit_reader_is_system_unit(reader),
                records=records,
                module_dependencies=modules,
            )
        finally:
            lib.indexstore_unit_reader_dispose(reader)

    def occurrences(self, record_name):
        lib = self._lib
        error = ctypes.c_void_p()
        reader = lib.indexstore_record_reader_create(self._store, record_name.encode(), ctypes.byref(error))
        if not reader:
            raise RuntimeError(self._describe(error, f"cannot read record {record_name}"))
        found = []
        line = ctypes.c_uint()
        column = ctypes.c_uint()

        def visit(_context, occurrence):
            symbol = lib.indexstore_occurrence_get_symbol(occurrence)
            related = []

            def visit_relation(_ctx, relation):
                related_symbol = lib.indexstore_symbol_relation_get_symbol(relation)
                related.append((lib.indexstore_symbol_relation_get_roles(relation),
                                lib.indexstore_symbol_get_usr(related_symbol).text(),
                                lib.indexstore_symbol_get_name(related_symbol).text()))
                return True

            lib.indexstore_occurrence_relations_apply_f(occurrence, None, _APPLIER(visit_relation))
            lib.indexstore_occurrence_get_line_col(occurrence, ctypes.byref(line), ctypes.byref(column))
            found.append(Occurrence(
                usr=lib.indexstore_symbol_get_usr(symbol).text(),
                name=lib.indexstore_symbol_get_name(symbol).text(),
                roles=lib.indexstore_occurrence_get_roles(occurrence),
                line=line.value,
                column=column.value,
                related=related,
            ))
            return True

        try:
            lib.indexstore_record_reader_occurrences_apply_f(reader, None, _APPLIER(visit))
        finally:
            lib.indexstore_record_reader_dispose(reader)
        return found
