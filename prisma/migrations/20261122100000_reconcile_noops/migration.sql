-- CreateTable
CREATE TABLE "ReconcileNoop" (
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "lastAt" DATETIME NOT NULL,

    PRIMARY KEY ("namespace", "name")
);

