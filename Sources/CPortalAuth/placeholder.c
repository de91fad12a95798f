int pa_placeholder_symbol_(void) { return 0; }
