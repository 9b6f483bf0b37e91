import { readFileSync } from "node:fs";
import { getDMMF } from "@prisma/get-dmmf";
const dmmf = await getDMMF({ datamodel: readFileSync("/work/main/prisma/schema.prisma", "utf8") });
const m = dmmf.datamodel.models.find((x) => x.name === "Run")!;
console.log(JSON.stringify({ dbName: m.dbName, primaryKey: m.primaryKey, uniqueFields: m.uniqueFields, uniqueIndexes: m.uniqueIndexes }, null, 1));
console.log(JSON.stringify(m.fields.slice(0, 3).concat(m.fields.filter(f=>f.name==="loopState"||f.name==="chat")), null, 1));
console.log(Object.keys(dmmf.datamodel), JSON.stringify((dmmf.datamodel as any).indexes?.slice(0,3), null, 1));
console.log(JSON.stringify(dmmf.datamodel.enums[0]));
