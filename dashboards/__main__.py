"""``python -m dashboards``: regenerate every file under deploy/ that this package owns."""

from dashboards.generate import main

raise SystemExit(main())
