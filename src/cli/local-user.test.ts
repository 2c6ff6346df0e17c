import { describe, expect, it } from "vitest";
import { localUser } from "./local-user.js";

describe("localUser", () => {
  it("is $USER, else $LOGNAME, else the OS account, else local (empty values count as unset)", () => {
    const account = () => "ana";
    expect(localUser({ USER: "bo", LOGNAME: "cy" }, account)).toBe("bo");
    expect(localUser({ LOGNAME: "cy" }, account)).toBe("cy");
    expect(localUser({ USER: "", LOGNAME: "" }, account)).toBe("ana");
    expect(localUser({}, () => null)).toBe("local");
    expect(localUser({})).toBeTruthy();
  });
});
