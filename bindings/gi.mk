# What bindings/glib/Makefile and bindings/gtk/Makefile share: their vapi, build-tree .pc and install rules. Included
# after each has set HERE, OUT, API, SONAME, PKG_NAME, GIR, TYPELIB, VAPIDIR, VAPI, PUBLIC_HEADERS, PREFIX, VAPIGEN,
# LIBRARY_PREREQUISITES (what its library is linked from) and link_library ($(call link_library,DIR,RUNPATH)).

# $(call make_vapi,VAPIGEN_ARGS,DEPS): vapigen over the .gir (the first prerequisite) with the binding's metadata, and
# the .deps vapigen does not write (DEPS, one package a line), so `valac --pkg PKG_NAME` brings them along.
define make_vapi
	@mkdir -p $(dir $@)
	$(VAPIGEN) --library=$(PKG_NAME) $(1) --metadatadir=$(HERE) --directory=$(VAPIDIR) $<
	printf '%s\n' $(2) > $(VAPIDIR)/$(PKG_NAME).deps
endef

# $(call build_tree_pc,DESCRIPTION,REQUIRES,CFLAGS): the build tree's .pc, with absolute paths into OUT/lib (not for
# installing: `make install` writes PKG_NAME.pc.in's).
define build_tree_pc
	@mkdir -p $(dir $@)
	printf '%s\n' '# $(PKG_NAME) in its build tree (bindings/$(notdir $(HERE))/Makefile); `make install` writes' \
		'# the one to install.' 'Name: $(PKG_NAME)' 'Description: $(1) (build tree)' 'Version: $(API).0.0' 'Requires: $(2)' \
		'Libs: -L$(OUT)/lib -l$(PKG_NAME) -Wl,-rpath,$(OUT)/lib' 'Cflags: $(3)' > $@
endef

# Installed, the library is linked again (into OUT/install) to find what it needs beside it, RUNPATH $ORIGIN (the top
# `make install PREFIX=...` puts libvoicenote, voicenote-glib and voicenote-gtk in PREFIX/lib), then installed with
# its headers, gir, typelib, vapi and PKG_NAME.pc.in, which computes its prefix from its own place
# (bindings/gi-install.sh).
INSTALL_LIBRARY := $(OUT)/install/$(SONAME)
$(INSTALL_LIBRARY): $(LIBRARY_PREREQUISITES)
	$(call link_library,$(OUT)/install,$$ORIGIN)

install: $(INSTALL_LIBRARY) $(GIR) $(TYPELIB) $(VAPI)
	$(HERE)/../gi-install.sh $(PREFIX) $(PKG_NAME) $(INSTALL_LIBRARY) $(GIR) $(TYPELIB) $(VAPIDIR) \
		$(HERE)/$(PKG_NAME).pc.in $(API) $(PUBLIC_HEADERS)
