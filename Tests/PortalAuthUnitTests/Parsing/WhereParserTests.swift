import Testing

@testable import PortalEmulator

/// The where parser and evaluator against the built-in dataset, without HTTP.
@Suite("where clauses")
struct WhereParserTests {
    /// The OBJECTIDs matching a clause.
    func ids(_ clause: String) throws -> [Int] {
        let expression = try WhereParser.parse(clause)
        return ParcelsDataset.parcels.filter { WhereEvaluator.matches(expression, $0) }.map(\.objectID)
    }

    @Test("the dataset has 24 parcels with the documented mix")
    func dataset() {
        #expect(ParcelsDataset.parcels.count == 24)
        #expect(ParcelsDataset.parcels.filter { $0.useType == "Residential" }.count == 14)
        #expect(ParcelsDataset.parcels.filter { $0.useType == "Commercial" }.count == 4)
        #expect(ParcelsDataset.parcels.filter { $0.useType == "Government" }.count == 3)
        #expect(ParcelsDataset.parcels.filter { $0.useType == "Industrial" }.count == 3)
        for parcel in ParcelsDataset.parcels {
            #expect(parcel.xmin < parcel.xmax && parcel.ymin < parcel.ymax)
            #expect(abs(parcel.xmin + 117.20) < 0.01 && abs(parcel.ymin - 34.05) < 0.01)
        }
        // No two parcels touch: every pair is separated by a street.
        for a in ParcelsDataset.parcels {
            for b in ParcelsDataset.parcels where a.objectID < b.objectID {
                #expect(!a.envelope.intersects(b.envelope), "\(a.objectID) touches \(b.objectID)")
            }
        }
    }

    @Test(
        "1=1 and comparisons",
        arguments: [
            ("1=1", Array(1...24)),
            ("1 = 0", []),
            ("UseType = 'Government'", [5, 13, 21]),
            ("UseType <> 'Residential'", [3, 5, 8, 10, 13, 16, 17, 21, 22, 23]),
            ("UseType != 'Residential'", [3, 5, 8, 10, 13, 16, 17, 21, 22, 23]),
            ("YearBuilt < 1950", [5, 12]),
            ("YearBuilt <= 1954", [1, 5, 12]),
            ("YearBuilt > 2010", [10, 17, 19]),
            ("YearBuilt >= 2017", [17, 19]),
            ("OBJECTID = 7", [7]),
            ("AreaSqFt > 0", Array(1...24)),
            ("APN >= '0292-104-05'", [23, 24]),
        ])
    func comparisons(clause: String, expected: [Int]) throws {
        #expect(try ids(clause) == expected)
    }

    @Test(
        "LIKE, IN, IS NULL, BETWEEN and functions",
        arguments: [
            ("Owner LIKE 'Smith%'", [6, 12]),
            ("Owner LIKE '%LLC'", [3, 4, 10, 17, 23]),
            ("Owner LIKE '%''%'", [4]),
            ("Owner LIKE 'Le_, David'", [18]),
            ("Owner NOT LIKE '%LLC'", [1, 2, 5, 6, 7, 8, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 24]),
            ("Owner = 'O''Brien Holdings LLC'", [4]),
            ("OBJECTID IN (1, 3, 99)", [1, 3]),
            ("UseType IN ('Industrial','Government')", [5, 8, 13, 16, 21, 23]),
            ("UseType NOT IN ('Residential', 'Commercial')", [5, 8, 13, 16, 21, 23]),
            ("YearBuilt IS NULL", [13, 21]),
            ("Owner IS NULL", [9]),
            ("YearBuilt BETWEEN 1960 AND 1970", [2, 11, 20]),
            ("UPPER(UseType) = 'GOVERNMENT'", [5, 13, 21]),
            ("LOWER(Owner) LIKE '%trust%'", [1, 12]),
        ])
    func predicates(clause: String, expected: [Int]) throws {
        #expect(try ids(clause) == expected)
    }

    @Test(
        "AND, OR, NOT, parentheses and precedence",
        arguments: [
            ("UseType = 'Commercial' AND YearBuilt > 2000", [10, 17, 22]),
            ("UseType = 'Government' OR YearBuilt < 1950", [5, 12, 13, 21]),
            ("NOT (UseType = 'Residential')", [3, 5, 8, 10, 13, 16, 17, 21, 22, 23]),
            ("(UseType = 'Industrial' OR UseType = 'Commercial') AND NOT YearBuilt >= 1990", [3, 8, 23]),
            ("UseType = 'Government' OR UseType = 'Industrial' AND YearBuilt > 1990", [5, 13, 16, 21]),
            ("(UseType = 'Government' OR UseType = 'Industrial') AND YearBuilt > 1990", [16]),
            ("usetype = 'Government' and objectid > 10", [13, 21]),
            ("NOT NOT OBJECTID = 2", [2]),
        ])
    func logic(clause: String, expected: [Int]) throws {
        #expect(try ids(clause) == expected)
    }

    @Test("NULL is unknown: neither a comparison nor its negation matches")
    func threeValuedLogic() throws {
        let high = try ids("YearBuilt > 1990")
        let notHigh = try ids("NOT YearBuilt > 1990")
        #expect(Set(high).isDisjoint(with: notHigh))
        #expect(high.count + notHigh.count == 22)
        #expect(try ids("Owner IS NOT NULL").count == 23)
        #expect(try ids("YearBuilt = NULL") == [])
    }

    @Test(
        "syntax and type errors are rejected",
        arguments: [
            "", "UseType =", "UseType = 'Government", "(1=1", "1=1)", "UseType == 'x'", "NoSuchField = 1",
            "YearBuilt = 'abc'", "UseType = 5", "1=1 garbage", "AND 1=1", "YearBuilt IN ()", "UseType LIKE 5",
            "YearBuilt BETWEEN 1 1970", "YearBuilt IS 5", "OBJECTID", "OBJECTID = 1; DROP TABLE x", "12abc = 1",
        ])
    func errors(clause: String) {
        #expect(throws: WhereError.self) { try WhereParser.parse(clause) }
    }

    @Test("LIKE wildcards")
    func likeMatcher() {
        #expect(WhereEvaluator.like(Array("abc"), Array("a%")))
        #expect(WhereEvaluator.like(Array("abc"), Array("%c")))
        #expect(WhereEvaluator.like(Array("abc"), Array("a_c")))
        #expect(WhereEvaluator.like(Array("abc"), Array("%%")))
        #expect(!WhereEvaluator.like(Array("abc"), Array("a_")))
        #expect(!WhereEvaluator.like(Array("abc"), Array("A%")))
        #expect(WhereEvaluator.like(Array("aXbXc"), Array("%X%c")))
        #expect(WhereEvaluator.like(Array(""), Array("%")))
    }
}
