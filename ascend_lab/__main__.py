from ascend_lab.cli import main

raise SystemExit(main())
