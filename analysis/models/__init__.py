"""Model clients behind one small async interface (analysis.models.base.ModelClient)."""
